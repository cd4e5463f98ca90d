// One verbs connection to one peer: RC queue pairs, one per stream, set up
// by setup_exchange.h.
//
// One-sided: every entry is checked against the peer's rkeys, cut into WRs
// (striping.h: large entries are striped over the QPs), and queued on the
// QPs' send queues (send_queue.h), which post within the send-queue depth
// and keep the rest in order. A request completes when all of its WRs have.
//
// Two-sided: a message is SEND_WITH_IMM pieces on the caller's stream;
// receives are filled from the receive slots in posting order
// (receive_path.h).
//
// Progress: one completion thread (completion_poller.h) reaps the shared
// CQ, posts backlog as room frees, copies messages out, and runs the
// timeout checks. Posting threads never wait on the peer.
//
// Failure: the first failed completion (its request gets the WR's error,
// e.g. kPermissionDenied for a remote access error, kConnectionLost for
// exhausted RC retries), a peer that closes the control socket (its process
// died or it disconnected), a WR with no completion for io_timeout, a
// message stuck for io_timeout, or Close() fails the whole connection: its
// QPs go to ERROR, every other in-flight request and posted receive
// finishes with kConnectionLost naming the reason, later posts return it.
#ifndef XFER_TRANSPORT_VERBS_VERBS_ENDPOINT_H_
#define XFER_TRANSPORT_VERBS_VERBS_ENDPOINT_H_

#include <array>
#include <atomic>
#include <deque>
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "transport/transport.h"
#include "transport/verbs/completion_poller.h"
#include "transport/verbs/connection_state.h"
#include "transport/verbs/endpoint_resources.h"
#include "transport/verbs/receive_path.h"
#include "transport/verbs/send_queue.h"
#include "transport/verbs/setup_exchange.h"
#include "transport/verbs/setup_message.h"
#include "transport/verbs/striping.h"

namespace xfer::transport::verbs {

// Thread-safety: as Endpoint. Posts on one stream serialise on its send
// queue's mutex for the time it takes to post, never longer.
class VerbsEndpoint final : public Endpoint, private CompletionPoller::Sink {
 public:
  // Takes the connected resources (every QP in RTS, slots posted) and
  // starts the completion thread. `setup.control` is watched for the peer
  // hanging up. Errors: kIoError (the thread's eventfd).
  static Result<std::unique_ptr<VerbsEndpoint>> Create(
      std::unique_ptr<EndpointResources> resources, PeerSetup peer, const EndpointSetup& setup);
  ~VerbsEndpoint() override;  // Close()

  // The entries' pieces as WRs on their streams (see striping.h), each a
  // part of `request`. Errors, with the request untouched: kOutOfRange /
  // kPermissionDenied (a range outside the peer's keyed regions or our
  // registered memory), kInvalidArgument (more than 2^32-1 WRs),
  // kResourceExhausted (registering a local region failed),
  // kConnectionLost. Failures after arming finish the request instead.
  Status PostWrite(std::span<const TransferEntry> entries, TransferRequest& request,
                   uint32_t stream) override;
  Status PostRead(std::span<const TransferEntry> entries, TransferRequest& request,
                  uint32_t stream) override;

  // One message, in pieces of the peer's receive-slot size, on `stream`;
  // completes once the peer's NIC has acknowledged every piece. Errors as
  // PostWrite, plus kInvalidArgument above kMaxMessageBytes.
  Status PostSend(const void* data, size_t length, TransferRequest& request,
                  uint32_t stream) override;

  // Errors: kConnectionLost.
  Status PostRecv(void* buffer, size_t capacity, TransferRequest& request) override;

  // SEND_WITH_IMM pieces (immediate value: length | kNotificationImm) from
  // an outbox slot, on `stream`'s QP behind its WRITEs and READs, which
  // the peer's NIC executes in order. On a connection of several QPs a
  // long entry's pieces may ride other QPs (striping.h): the notification
  // is then held back until every WR queued on the other QPs before it has
  // completed, and notifications keep their posting order. Completes once
  // the peer's NIC acknowledged it. Errors: PostSend's, and
  // kResourceExhausted when NotificationOutbox's slots are all in flight.
  Status PostNotify(std::span<const uint8_t> message, TransferRequest& request,
                    uint32_t stream) override;

  // The opened device and port, and the MTU the setup exchange settled.
  NicPort nic() const override;

  // The announced regions' registration (CreateEndpointResources).
  DeviceRegistration registration() const override;

  // Fails the connection with kConnectionLost (unless it failed already),
  // waits for the completion thread, which finishes everything in flight.
  // Idempotent. The QPs are destroyed with the object.
  // Deregisters the region's MR (LocalRegistrations::Withdraw): the peer's
  // later RDMA access to it completes, on the peer's side, with a remote
  // access error (kPermissionDenied), and that failure puts the peer's
  // queue pair, so this connection, in the error state. `deadline` is
  // unused: ibv_dereg_mr returns once the device has let go. Errors:
  // kIoError (the device refused; the region stays reachable).
  Status Revoke(const LocalRegionView& region, Deadline deadline) override;

  void Close() override;

 private:
  VerbsEndpoint(std::unique_ptr<EndpointResources> resources, PeerSetup peer,
                const EndpointSetup& setup);

  // Stack space for one post's keys, pieces and WRs: a batch of a few
  // dozen entries is posted without touching the heap; a longer one spills
  // into it.
  using PostScratch = std::array<std::byte, 8192>;
  using StreamCounts = std::array<uint32_t, kMaxStreams>;
  using StreamSeqs = std::array<uint64_t, kMaxStreams>;
  // Reserves per_stream[q] WRs on every QP q, all or none. Errors:
  // SendQueue::Reserve's.
  Status ReserveAll(const StreamCounts& per_stream);
  Status PostOneSided(WrOp op, std::span<const TransferEntry> entries, TransferRequest& request,
                      uint32_t stream);
  // Kills the connection (first reason wins): QPs to ERROR, wakes the thread.
  void Fail(const Status& reason);

  // A notification waiting for WRs on other QPs (PostNotify).
  struct HeldNotification {
    uint32_t queue = 0;
    std::vector<WorkRequest> wrs;
    StreamSeqs after{};  // per QP: the WRs it waits for, by sequence number
  };
  // True once every WR `held` waits for has finished.
  bool Releasable(const HeldNotification& held) const;
  // Queues the held notifications whose WRs have finished, oldest first;
  // on the completion thread after each completion.
  void ReleaseHeld();
  // Finishes a notification's WRs that will never be queued.
  void FinishHeld(const HeldNotification& held, const Status& reason);

  // CompletionPoller::Sink, on the completion thread.
  void OnCompletion(const ibv_wc& wc) override;
  void OnTick(uint64_t now_ns) override;
  void OnFatal(const Status& reason) override;
  bool Closed() const override;
  bool Quiesced() const override;
  void Stopped() override;

  std::unique_ptr<EndpointResources> resources_;  // first: destroyed last
  const PeerSetup peer_;
  const StripeRule rule_;
  const std::chrono::milliseconds io_timeout_;
  ConnectionState state_;
  std::vector<std::unique_ptr<SendQueue>> send_queues_;  // one per stream
  std::unique_ptr<ReceivePath> receive_;
  std::unique_ptr<CompletionPoller> poller_;

  // Notifications held back (PostNotify), in posting order.
  std::mutex held_mu_;
  std::deque<HeldNotification> held_;  // GUARDED_BY(held_mu_)
  bool held_closed_ = false;           // GUARDED_BY(held_mu_): Stopped() ran
  std::atomic<bool> any_held_{false};  // held_ non-empty; read per completion
  std::mutex close_mu_;  // serialises Close()
  bool joined_ = false;  // GUARDED_BY(close_mu_)
};

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_VERBS_ENDPOINT_H_
