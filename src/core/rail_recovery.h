// Brings a striped connection's failed rails back. Both engines of the
// connection run one, over their control connection (idle once the
// connection is set up), and agree on each rail's return:
//  - The initiator drives. A rail down on its side is tried again once its
//    backoff has passed: it asks the acceptor (kRejoin); the acceptor leaves
//    the rail if it still had it up, answers kReady (or kRefuse, with why),
//    and both set up a fresh endpoint for the rail over the control
//    connection, as they did at connect, which StripedEndpoint::Rejoin puts
//    in place. A failed attempt doubles the rail's backoff, up to its
//    maximum; once the returned rail has carried a slice, it starts again
//    from the first ("one success clears it").
//  - The acceptor reports each rail it finds down (kDown), which the
//    initiator then leaves too: a failure only one end sees (a silent link
//    under the acceptor's WRITEs) is recovered like any other.
//  - Either side fences a rail before the WRITEs it failed are dealt again
//    (Fence, for StripedEndpoint::SetFence): it asks the peer (kFence) to
//    abandon its end of the rail, which then applies nothing more it
//    received there, and waits for it to say so (kFenced). Without that,
//    bytes of a failed slice the peer had received but not yet placed
//    could land after the same slice, dealt again, had completed.
// Only the initiator asks to set up, and each side's thread does one thing
// at a time, so the two never set up at once over the control connection,
// and neither reads the other's setup messages as its own: the acceptor
// answers a kRejoin only once the initiator has answered its fences, and
// the initiator sends fences only between attempts. Messages are framed as the
// transports' setup messages are (a length, then the body); one that is
// not ours -- left over from a setup attempt that failed part way -- is
// skipped. Every byte of the peer's is checked: a malformed message ends
// the recovery (the rails down stay down), never the process.
//
// A rail cannot be set up again when a region announced at connect has
// been deregistered since (the peer checks a fresh endpoint's keys against
// the handshake's list): `check` says so, and the rail is not tried again.
#ifndef XFER_CORE_RAIL_RECOVERY_H_
#define XFER_CORE_RAIL_RECOVERY_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/socket.h"
#include "common/unique_fd.h"
#include "core/striped_endpoint.h"
#include "transport/transport.h"
#include "xfer/status.h"

namespace xfer::core {

// One message of the rails' recovery protocol.
struct RailMessage {
  enum class Kind : uint8_t {
    kRejoin = 1,
    kReady = 2,
    kRefuse = 3,
    kDown = 4,
    kFence = 5,
    kFenced = 6
  };
  Kind kind = Kind::kRejoin;
  uint32_t rail = 0;
  // kRejoin's number, echoed by its kReady or kRefuse; kFence's, echoed by
  // its kFenced.
  uint32_t attempt = 0;
  std::string reason;    // kRefuse, kDown: why (at most kMaxReason bytes)

  static constexpr size_t kMaxReason = 1024;
};

std::vector<uint8_t> EncodeRailMessage(const RailMessage& message);
// nullopt: not a message of this protocol (another one's, to skip).
// Errors: kProtocolError for one of ours that is malformed, or names a rail
// at or above `rails`.
Result<std::optional<RailMessage>> DecodeRailMessage(std::span<const uint8_t> bytes,
                                                     uint32_t rails);

// How long a down rail waits before each attempt to bring it back.
class RejoinBackoff {
 public:
  // `first` > 0; `most` >= first.
  RejoinBackoff(std::chrono::milliseconds first, std::chrono::milliseconds most)
      : first_(first), most_(most), next_(first) {}
  // The wait before the next attempt.
  std::chrono::milliseconds Next() const { return next_; }
  // An attempt failed: the next wait doubles, up to the most.
  void Failed() { next_ = std::min(next_ * 2, most_); }
  // The rail carried traffic again: back to the first wait.
  void Succeeded() { next_ = first_; }

 private:
  std::chrono::milliseconds first_;
  std::chrono::milliseconds most_;
  std::chrono::milliseconds next_;
};

class RailRecovery {
 public:
  struct Options {
    bool initiator = false;
    // The first wait before a down rail is tried again, and the most it
    // doubles to.
    std::chrono::milliseconds backoff{250};
    std::chrono::milliseconds max_backoff{3000};
    // Bound on one attempt: the two ends' setup of the rail, and on a
    // message of the protocol once it has begun to arrive. A peer that
    // does not answer a request within two ends the recovery.
    std::chrono::milliseconds attempt_timeout{2000};
  };
  // The longest an engine lets one attempt take (milliseconds): each
  // failed one holds the peer's end in its setup that long.
  static constexpr int64_t kMostAttempt = 2000;

  // What a rail's return needs of the connection.
  struct Paths {
    // OK when `rail` can be set up again; else why not (for good).
    std::function<Status(uint32_t rail)> check;
    // A fresh endpoint for `rail`, set up over the control connection with
    // the peer doing the same, by `deadline`.
    std::function<Result<std::unique_ptr<transport::Endpoint>>(uint32_t rail, Deadline deadline)>
        set_up;
  };

  // `control` and `striped` outlive this object. Starts the thread.
  // Errors: kResourceExhausted when the thread cannot start.
  static Result<std::unique_ptr<RailRecovery>> Start(Socket& control, StripedEndpoint& striped,
                                                     Paths paths, Options options);
  ~RailRecovery();  // Stop()
  RailRecovery(const RailRecovery&) = delete;
  RailRecovery& operator=(const RailRecovery&) = delete;

  // Ends the thread: shuts the control connection down, which ends an
  // attempt in progress at once. Idempotent.
  void Stop();
  // Ends every Fence waiting, and every later one, with kConnectionLost,
  // the thread and the control connection left as they are: for a
  // connection closing, whose endpoint waits for its recovery thread.
  void EndFences();

  // Asks the peer to abandon its end of `rail` and waits until it has
  // (see above). Thread-safe; answered within a control round trip while
  // neither side sets a rail up. Errors: kTimeout by `deadline`;
  // kConnectionLost once the recovery has ended.
  Status Fence(uint32_t rail, Deadline deadline);

  // Why the recovery ended early (a malformed message, the control
  // connection lost); empty while it runs.
  std::string Ended() const;

 private:
  RailRecovery(Socket& control, StripedEndpoint& striped, Paths paths, Options options,
               UniqueFd wake);

  using Clock = std::chrono::steady_clock;
  // Per rail, what this side knows of its return.
  struct RailState {
    explicit RailState(const Options& options) : backoff(options.backoff, options.max_backoff) {}
    RejoinBackoff backoff;
    Clock::time_point next_attempt{};  // set when it is found down
    bool scheduled = false;            // next_attempt holds
    bool given_up = false;             // cannot be set up again
    bool reported = false;             // the acceptor said kDown for it
    // Slices it had carried when it came back; none counted yet when
    // nullopt (the backoff is reset once it carries one more).
    std::optional<uint64_t> slices_at_return;
  };

  void Loop();
  // Waits up to `wait` for the peer's next message, or for a fence to ask
  // for: nullopt when no message came. Errors: the connection's (lost,
  // shut down), kProtocolError.
  Result<std::optional<RailMessage>> Receive(std::chrono::milliseconds wait);
  Status Send(const RailMessage& message);
  // Either side: a message other than the setup's own -- kDown, kFence,
  // kFenced -- answered at once. Errors: Send's.
  Status OnPeerMessage(const RailMessage& message);
  // Sends the fences asked for since (while no setup runs). Errors: Send's.
  Status SendFences();
  // Wakes the waiters of fence `id` (answered or not: see Fence).
  void Answered(uint32_t id);
  // The initiator: tries down rails whose backoff has passed.
  Status TryDownRails();
  Status Attempt(uint32_t rail);
  // `rail` cannot come back (`why`): not tried again, and its events say so.
  void GiveUp(uint32_t rail, std::string_view why);
  // The acceptor: reports down rails; answers a kRejoin.
  Status ReportDownRails();
  Status Serve(const RailMessage& rejoin);
  // Both: a rail that came back and carried a slice clears its backoff.
  void NoteProgress();

  Socket& control_;
  StripedEndpoint& striped_;
  const Paths paths_;
  const Options options_;
  std::vector<RailState> rails_;  // the thread's own
  uint32_t attempts_ = 0;
  std::vector<uint32_t> awaiting_;  // the thread's own: fences sent, not answered
  // Fences: asked for by Fence, sent by the thread, answered by the peer.
  UniqueFd wake_;  // an eventfd: Fence wakes the thread with it
  std::mutex fence_mu_;
  std::condition_variable fence_cv_;
  uint32_t fences_ = 0;                                     // GUARDED_BY(fence_mu_)
  std::vector<std::pair<uint32_t, uint32_t>> to_send_;     // GUARDED_BY(fence_mu_): id, rail
  std::vector<uint32_t> answered_;                          // GUARDED_BY(fence_mu_)
  bool over_ = false;  // GUARDED_BY(fence_mu_): the thread has ended
  std::atomic<bool> stopping_{false};
  mutable std::mutex ended_mu_;
  std::string ended_;  // GUARDED_BY(ended_mu_)
  std::thread thread_;
};

}  // namespace xfer::core

#endif  // XFER_CORE_RAIL_RECOVERY_H_
