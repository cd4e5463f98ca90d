// A connection over several rails, seen as one endpoint. A rail is one
// path between the two engines -- over verbs a local and a remote RDMA
// device, over tcp a local and a remote address -- carried by an endpoint
// of the connection's transport. The engine wraps a connection's rails in
// a StripedEndpoint when it has more than one, and everything above (the
// submit pipeline, the staging pipeline) posts to it as to any endpoint.
//
// What goes where:
//  - WRITE and READ: dealt over the rails by a RailStriper (rail_striper.h):
//    a large request in slices by each rail's bandwidth and bytes in
//    flight, a small one whole on one rail, a tiny one (a few hundred
//    bytes) straight to rail 0 while it is lightly loaded, untracked. Each rail's part is posted with
//    a request of the StripedEndpoint's own (a "leg"), whose completion
//    feeds the striper's estimates and finishes one part of the caller's
//    request; so the caller's request completes when every slice has.
//  - Notifications: on rail 0, ordered behind the data as PostNotify
//    promises: one posted while legs of its stream are still in flight on
//    another rail waits, on the StripedEndpoint's notifier thread, until
//    they have completed (a completion means the bytes are in the peer's
//    memory, or were read from it, on every transport), and is posted
//    then. Notifications of one stream keep their order.
//  - Send/recv: on rail 0 (messages match receives in posting order,
//    which one path keeps). They are not retried: a message in flight on
//    a failed rail fails its request, and with rail 0 down they fail.
//
// Failover: a leg that fails as a link does (kConnectionLost, kIoError,
// kTimeout) takes its rail down -- it is dealt nothing more, and the
// failure is kept to name it -- and the slice is dealt again, on the
// recovery thread, to the up rail with the lowest score other than the one
// that just failed it, at most Options::max_retries times. The caller's
// request completes OK only when every slice is in place: a retried WRITE
// rewrites the same bytes to the same place, a retried READ reads them
// again. A failure the peer decided (a refused range, a revoked region) is
// the request's, not the rail's, and is not retried; nor is a slice of a
// request cancelled or past its deadline meanwhile (it completes as it
// would have, once its slices in flight end). With no rail up, the
// slice and every later request fail with kConnectionLost naming each
// rail and why it went down. Notifications go on the first up rail (rail 0
// while it is up), behind every leg of their stream on the other rails,
// retried legs included; they stay on the rail they moved to while it is
// up (a notification never overtakes an older one of its stream on a rail
// that came back).
// A rail comes back with Rejoin: a fresh endpoint over the same path, set
// up by both ends (RailRecovery, rail_recovery.h, drives that over the
// control connection) takes the failed one's place, and slices are dealt
// to it again.
// A rail that fails silently -- a dead link that neither completes nor
// fails what was posted to it -- is found by the recovery thread, which
// looks every Options::slice_timeout / 4 (at most 100 ms) for a rail with
// slices in flight and none completed within slice_timeout (RailWatchdog):
// it is taken down with kTimeout and its endpoint closed, which fails its
// slices in flight, and they are dealt again as above. (Requests posted
// Direct on rail 0 are not watched: their transport's io_timeout bounds
// them.) A WRITE slice a failed rail had in flight is dealt again only
// once the rail is fenced (SetFence): the peer has abandoned its end, so
// bytes of it the peer received but had not yet placed cannot land after
// the slice, dealt again, completed.
//  - Prepared lists: nothing is prepared (a list's entries are dealt like
//    any request's).
//  - Revoke, polls, Close: every rail. Revoke waits for a Rejoin in
//    progress, so that the new endpoint never keeps a revoked region.
//
// The hot-path rules (transport.h) hold but for one lock-free claim of a
// leg per rail a request uses; legs come from a fixed pool, and a request
// that finds too few free is refused whole with kResourceExhausted (retry).
#ifndef XFER_CORE_STRIPED_ENDPOINT_H_
#define XFER_CORE_STRIPED_ENDPOINT_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "common/request_access.h"
#include "core/rail_striper.h"
#include "core/rail_watchdog.h"
#include "transport/transport.h"
#include "xfer/engine.h"

namespace xfer::core {

class StripedEndpoint final : public transport::Endpoint {
 public:
  struct Rail {
    std::unique_ptr<transport::Endpoint> endpoint;
    double nominal_bytes_per_sec = 0;  // the link's rate; 0 when unknown
  };

  // The legs one StripedEndpoint has in flight at most: 128 requests of 32
  // slices, a deep queue of large ones.
  static constexpr size_t kLegs = 4096;

  struct Options {
    RailStriper::Options striper;
    // How many times one slice is dealt again after failing (Mooncake
    // TENT's 8): each time to another rail than the one that just failed it.
    uint32_t max_retries = 8;
    // A rail with slices in flight and none completed for longer is taken
    // down as silently failed; 0: not watched.
    std::chrono::milliseconds slice_timeout{0};
  };

  // `rails`: at least two, of one connection, each set up with `streams`.
  StripedEndpoint(std::vector<Rail> rails, uint32_t streams, Options options);
  ~StripedEndpoint() override;  // Close()
  StripedEndpoint(const StripedEndpoint&) = delete;
  StripedEndpoint& operator=(const StripedEndpoint&) = delete;

  Status PostWrite(std::span<const TransferEntry> entries, TransferRequest& request,
                   uint32_t stream) override;
  Status PostRead(std::span<const TransferEntry> entries, TransferRequest& request,
                  uint32_t stream) override;
  Status PostSend(const void* data, size_t length, TransferRequest& request,
                  uint32_t stream) override;
  Status PostRecv(void* buffer, size_t capacity, TransferRequest& request) override;
  Status PostNotify(std::span<const uint8_t> message, TransferRequest& request,
                    uint32_t stream) override;
  Status Revoke(const transport::LocalRegionView& region, Deadline deadline) override;
  void PollNotifications() override;
  void AwaitNotifications() override;
  void Close() override;
  NicPort nic() const override { return On(0)->nic(); }
  DeviceRegistration registration() const override;

  size_t rails() const { return rail_count_; }
  RailStriper::RailStats Stats(uint32_t rail) const { return striper_.Stats(rail); }
  // Why `rail` went down: the failure that took it down; empty while up.
  std::string Failure(uint32_t rail) const;
  // Every change of `rail`'s state, oldest first.
  std::vector<RailEvent> Events(uint32_t rail) const;
  // Bytes of slices `rail` failed that were dealt again on other rails.
  uint64_t RetriedBytes(uint32_t rail) const {
    return retried_bytes_[rail].load(std::memory_order_relaxed);
  }

  // Takes `rail` down for `failure` (kept, unless it is down already): it
  // is dealt nothing more.
  void TakeDown(uint32_t rail, const Status& failure);
  // TakeDown, and abandons the rail's endpoint (Endpoint::Abandon): what it
  // has in flight fails now and is dealt again on the others, and none of
  // it reaches the peer later. For a rail its peer reports lost.
  void Leave(uint32_t rail, const Status& failure);

  // Makes sure the peer applies nothing more it received on `rail`
  // (RailRecovery::Fence); errors when it cannot by the deadline.
  using RailFence = std::function<Status(uint32_t rail, Deadline deadline)>;
  // Set before the first post, once. Without a fence (the default, and
  // when it fails: the rail's record says so), WRITEs are dealt again at
  // once, and late bytes of the failed rail may land after them.
  void SetFence(RailFence fence, std::chrono::milliseconds timeout) {
    fence_ = std::move(fence);
    fence_timeout_ = timeout;
  }

  // Adds an event to down `rail`'s record that changes nothing: why it
  // does not come back.
  void Remark(uint32_t rail, std::string reason);

  // Makes a fresh endpoint over a rail's path; called by Rejoin.
  using RailSetUp = std::function<Result<std::unique_ptr<transport::Endpoint>>()>;
  // Failed slices of `rail` not yet dealt again (waiting for its fence).
  uint32_t PendingRetries(uint32_t rail) const {
    return retrying_[rail].load(std::memory_order_acquire);
  }

  // Brings down `rail` back: its endpoint is abandoned (as by Leave) and
  // `set_up` makes a fresh one; once nothing of the old one is in flight
  // or waiting to be dealt again, the fresh one takes its place, and the
  // rail is up again and dealt slices, with an event saying `why`. The old endpoint is destroyed once no thread is inside
  // it. Revoke waits while this runs (a region revoked meanwhile is
  // revoked on the fresh endpoint too). Errors: kFailedPrecondition (the
  // rail is up, or the connection closed), kTimeout (the old endpoint's
  // slices did not end by `deadline`; the rail stays down), set_up's.
  Status Rejoin(uint32_t rail, const RailSetUp& set_up, std::string_view why, Deadline deadline);

 private:
  // One rail's part of a caller's request.
  struct Leg final : internal::CompletionWatch {
    void Finished() override;
    StripedEndpoint* owner = nullptr;
    TransferRequest request;
    std::atomic<bool> claimed{false};
    TransferRequest* parent = nullptr;
    uint32_t rail = 0;
    uint32_t stream = 0;
    uint64_t bytes = 0;
    // What to post again if the rail fails it: its entries (the vector
    // keeps its capacity from leg to leg), and the retries so far.
    OpCode op = OpCode::kWrite;
    std::vector<TransferEntry> entries;
    uint32_t retries = 0;
  };

  // A rail's endpoint, swapped by Rejoin, and the threads inside it.
  struct Slot {
    std::atomic<transport::Endpoint*> endpoint{nullptr};
    std::atomic<uint32_t> users{0};
  };
  // One thread's use of a rail's endpoint, for as long as it calls into
  // it: Rejoin destroys a replaced endpoint only once none is left. (The
  // count goes up before the endpoint is read, so a thread that counts
  // itself after Rejoin's swap reads the fresh one.)
  class Use {
   public:
    explicit Use(Slot& slot)
        : slot_(slot),
          endpoint_((slot.users.fetch_add(1, std::memory_order_seq_cst),
                     slot.endpoint.load(std::memory_order_seq_cst))) {}
    ~Use() { slot_.users.fetch_sub(1, std::memory_order_release); }
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;
    transport::Endpoint* operator->() const { return endpoint_; }
    transport::Endpoint& operator*() const { return *endpoint_; }

   private:
    Slot& slot_;
    transport::Endpoint* const endpoint_;
  };
  Use On(uint32_t rail) const { return Use(slots_[rail]); }

  // A notification waiting for its stream's legs on other rails.
  struct Deferred {
    std::vector<uint8_t> message;
    TransferRequest* request;
    uint32_t stream;
  };

  Status Stripe(OpCode op, std::span<const TransferEntry> entries, TransferRequest& request,
                uint32_t stream);
  // Posts `entries` (`bytes` of them) on `rail` as `leg` (claimed) of
  // `parent`, which gains a part for it. On an error nothing was posted,
  // the part is taken back and the leg let go of.
  Status PostLeg(Leg& leg, uint32_t rail, OpCode op, std::span<const TransferEntry> entries,
                 uint64_t bytes, TransferRequest& parent, uint32_t stream);
  // A free leg, claimed; null when all are in flight.
  Leg* ClaimLeg();
  // kResourceExhausted for a request that found no free leg; its slices
  // leave the rails' bytes in flight.
  Status NoLeg(std::span<const RailStriper::Slice> slices);
  void LegFinished(Leg& leg);
  // Ends `leg`: its part of the parent finishes with `status` and `moved`
  // bytes, and it leaves its stream's count.
  void EndLeg(Leg& leg, const Status& status, size_t moved);
  // Deals a failed leg again (on the recovery thread), or ends it failed;
  // a WRITE once its rail is fenced.
  void Retry(Leg& leg, const Status& failure);
  // Fences `rail` (on the recovery thread) unless it was since it last
  // went down.
  void FenceRail(uint32_t rail);
  // Posts `leg` (its op, entries and stream) on its rail; while a rail
  // refuses it as a dead link does, takes that rail down and moves the leg
  // on (MoveLeg). The leg stays counted on the rail it ends on. Errors: the
  // post's, or MoveLeg's.
  Status PostOnRails(Leg& leg);
  // Moves a leg that `failure` ended on its rail to the up rail with the
  // lowest score other than that one, at most max_retries times. Errors:
  // `failure` once they are spent; kConnectionLost with no other rail up.
  Status MoveLeg(Leg& leg, const Status& failure);
  // Deals `leg`, which its rail's full queue refused (its bytes no longer
  // counted there), again to the up rail with the lowest score, its own
  // included, and counts it there. Errors: kConnectionLost with no rail up.
  Status Requeue(Leg& leg);
  // kConnectionLost for a send or receive with rail 0 down, naming why.
  Status MessagesLost() const;
  // kConnectionLost naming every rail and why it is down.
  Status NoRailLeft(std::string_view what) const;
  // Legs of `stream` in flight on `rail`.
  std::atomic<uint32_t>& LegsOn(uint32_t stream, uint32_t rail) {
    return legs_on_[stream * RailStriper::kMaxRails + rail];
  }
  // Legs of `stream` in flight on rails other than `rail`.
  uint32_t LegsOffRail(uint32_t stream, uint32_t rail);
  // The rail notifications go on: the one they went on last while it is
  // up (rail 0 at first), else the first up one; -1 when none is.
  // REQUIRES: notify_mu_ held.
  int NotifyRail();
  // Starts the recovery thread if it is not running. REQUIRES: notify_mu_
  // held.
  Status StartWorker();
  // Starts the recovery thread, which watches for silent rails, before the
  // first slice is posted; a failure to start it leaves them unwatched.
  void StartWatching();
  // Takes down every up rail the watchdog finds silent and closes its
  // endpoint, which fails its slices in flight (and so deals them again).
  // Called on the recovery thread without notify_mu_.
  void LeaveSilentRails();
  void WorkerLoop();
  // Posts the deferred notifications whose streams have drained, in
  // order. REQUIRES: notify_mu_ held (it is released around the posts).
  void PostDrained(std::unique_lock<std::mutex>& lock);

  const size_t rail_count_;
  // The rails' endpoints: owned here, used through slots_.
  std::mutex rails_mu_;  // Rejoin and Revoke
  std::vector<std::unique_ptr<transport::Endpoint>> owned_;  // GUARDED_BY(rails_mu_)
  std::unique_ptr<Slot[]> slots_;
  RailStriper striper_;
  std::unique_ptr<Leg[]> legs_;
  std::atomic<size_t> next_leg_{0};  // where the next claim starts looking
  const uint32_t max_retries_;
  const std::chrono::milliseconds slice_timeout_;
  RailWatchdog watchdog_;
  std::atomic<bool> watching_{false};  // the recovery thread runs
  std::unique_ptr<std::atomic<uint32_t>[]> legs_on_;  // [stream][rail]

  mutable std::mutex failures_mu_;
  std::vector<std::string> failures_;            // GUARDED_BY(failures_mu_): per rail
  std::vector<std::vector<RailEvent>> events_;   // GUARDED_BY(failures_mu_): per rail
  std::unique_ptr<std::atomic<uint64_t>[]> retried_bytes_;  // per rail
  // Per rail: how often it went down (TakeDown), and failed legs queued
  // for the recovery thread that have not left it (Rejoin waits for none).
  std::unique_ptr<std::atomic<uint64_t>[]> downs_;
  std::unique_ptr<std::atomic<uint32_t>[]> retrying_;
  RailFence fence_;
  std::chrono::milliseconds fence_timeout_{0};
  std::vector<uint64_t> fenced_;  // the recovery thread's: downs_ when last fenced

  // The recovery thread's work: deferred notifications and failed legs.
  std::mutex notify_mu_;
  std::condition_variable notify_cv_;
  std::deque<Deferred> deferred_;  // GUARDED_BY(notify_mu_)
  std::deque<std::pair<Leg*, Status>> failed_;  // GUARDED_BY(notify_mu_)
  // deferred_.size(), readable without the lock: a leg's completion takes
  // the lock only when a notification waits.
  std::atomic<size_t> deferred_count_{0};
  bool closed_ = false;            // GUARDED_BY(notify_mu_)
  int notify_rail_ = 0;            // GUARDED_BY(notify_mu_)
  // GUARDED_BY(notify_mu_): started by the first deferral or failure.
  std::thread worker_;
};

}  // namespace xfer::core

#endif  // XFER_CORE_STRIPED_ENDPOINT_H_
