// The send side of one queue pair: posts work requests while the QP's send
// queue has room, keeps the rest in a backlog in order, and matches
// completions back to the requests they finish.
//
// Depth: never more than `depth` WRs are posted and not yet completed, the
// send-queue size the QP was created with (capped by the device's
// max_qp_wr), so ibv_post_send never overflows it. Beyond that, WRs wait in
// the backlog and are posted as completions free room, by whichever thread
// handles the completion; Submit never blocks.
//
// Back-pressure: the backlog holds at most `backlog` WRs, in storage that
// grows to its high-water mark and is then reused. A poster reserves room
// for all its WRs (Reserve) before arming its request, so that a full queue
// refuses a request whole, with kResourceExhausted ("retry"), rather than
// taking part of it.
//
// Signalling: a WR is signalled when it is the last WR of its request on
// this QP (so every request completes promptly), after signal_every
// unsignalled WRs, and when it takes the last free slot (so room is always
// returned). An RC send queue completes in order, so one completion retires
// every unsignalled WR posted before it; a failed or flushed WR always
// produces a completion of its own, signalled or not.
#ifndef XFER_TRANSPORT_VERBS_SEND_QUEUE_H_
#define XFER_TRANSPORT_VERBS_SEND_QUEUE_H_

#include <infiniband/verbs.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>

#include "transport/fifo_ring.h"
#include "transport/verbs/notification_outbox.h"
#include "transport/verbs/completion_status.h"
#include "transport/verbs/connection_state.h"
#include "xfer/status.h"
#include "xfer/transfer.h"

namespace xfer::transport::verbs {

// One WR as a posting thread describes it.
struct WorkRequest {
  TransferRequest* request = nullptr;  // in flight; this WR is one of its parts
  WrOp op = WrOp::kWrite;              // kWrite, kRead or kSend
  uint64_t local = 0;                  // registered: WRITE/SEND source, READ destination
  uint32_t lkey = 0;
  uint32_t length = 0;
  uint64_t remote = 0;  // WRITE/READ: the peer's address
  uint32_t rkey = 0;
  uint32_t imm = 0;     // SEND: the whole message's length (host order)
  // The request's last WR on this QP: always signalled.
  bool last_of_request = false;
  // A piece of a notification: its bytes are not the request's.
  bool notification = false;
  // A notification's last piece: the outbox slot it is sent from, given
  // back once the WR is finished (completed, failed or flushed).
  uint32_t outbox_slot = NotificationOutbox::kNoSlot;
};

// Send-queue WR ids: (sequence << kSendWrIdShift) | QP index, bit 63 clear
// (receive_slots.h tags receive WRs with it).
inline constexpr int kSendWrIdShift = 7;  // QP index < 128

// Thread-safe: posting threads call Enqueue, the completion thread the rest.
class SendQueue {
 public:
  // `qp`, `state` and `outbox` must outlive the queue. REQUIRES: depth >=
  // 1, backlog >= 1, index < 128.
  SendQueue(ibv_qp* qp, uint32_t index, uint32_t depth, uint32_t backlog,
            const ConnectionState& state, NotificationOutbox& outbox);
  SendQueue(const SendQueue&) = delete;
  SendQueue& operator=(const SendQueue&) = delete;

  // Sets aside room for `count` WRs, for a later Enqueue (or Release).
  // Errors: kResourceExhausted when the queue lacks the room now (retry
  // once requests complete), kInvalidArgument when it could never hold
  // them (more than depth + backlog WRs).
  Status Reserve(uint32_t count);
  // Gives back room reserved and not enqueued.
  void Release(uint32_t count);

  // Queues `wrs` behind this QP's earlier WRs, back to back (a message's
  // pieces must not interleave with another message's), and posts what
  // fits. When the connection has already failed, finishes each WR's part
  // with its ClosedError() instead. REQUIRES: room for wrs.size() WRs was
  // reserved; every WR's request was armed with one part per WR. Errors:
  // kIoError when ibv_post_send refuses; the caller must then fail the
  // connection (the WRs are finished by Drain).
  Status Enqueue(std::span<const WorkRequest> wrs);

  // Handles the completion of WR `wr_id`: finishes its part, and the parts
  // of the unsignalled WRs posted before it, then posts from the backlog.
  // Returns the WR's error (CompletionError) when it failed while the
  // connection was alive; the caller must fail the connection with it. A
  // completion after the connection failed (a flush) finishes its part with
  // the connection's ClosedError() and returns OK.
  Status OnCompletion(uint64_t wr_id, ibv_wc_status status, uint32_t vendor_error);

  // True when no posted WR awaits its completion.
  bool Idle() const;

  // The sequence number the last WR queued so far has or will have when
  // posted; every WR queued later has a higher one.
  uint64_t QueuedThrough() const;
  // Every WR with a sequence number up to this one has finished.
  uint64_t FinishedThrough() const;

  // NowNs() when the oldest posted WR started waiting for the peer (the
  // later of: the queue went busy, the last completion); 0 when idle.
  uint64_t WaitingSinceNs() const;

  // Finishes every posted and queued WR's part with `reason`; WRs enqueued
  // afterwards are finished at once. Idempotent. Call once the QP can no
  // longer complete anything (in ERROR and flushed, or destroyed).
  void Drain(const Status& reason);

 private:
  struct Posted {
    uint64_t sequence = 0;
    TransferRequest* request = nullptr;
    WrOp op = WrOp::kWrite;
    uint32_t length = 0;
    bool notification = false;
    uint32_t outbox_slot = NotificationOutbox::kNoSlot;
  };

  // Posts from the backlog while there is room. REQUIRES: mu_ held.
  Status PumpLocked();
  void FinishLocked(const Posted& wr, const Status& status);
  // Finishes a WR that was never posted.
  void FinishUnposted(const WorkRequest& wr, const Status& status);

  ibv_qp* const qp_;
  const uint32_t index_;
  const uint32_t depth_;
  const uint32_t signal_every_;
  const ConnectionState& state_;
  NotificationOutbox& outbox_;

  mutable std::mutex mu_;
  FifoRing<WorkRequest> backlog_;       // GUARDED_BY(mu_); not yet posted
  FifoRing<Posted> posted_;             // GUARDED_BY(mu_); in post order, at most depth_
  uint64_t reserved_ = 0;               // GUARDED_BY(mu_); room promised to posters
  uint64_t next_sequence_ = 1;          // GUARDED_BY(mu_)
  uint32_t unsignaled_run_ = 0;         // GUARDED_BY(mu_)
  uint64_t waiting_since_ns_ = 0;       // GUARDED_BY(mu_)
  bool drained_ = false;                // GUARDED_BY(mu_)
};

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_SEND_QUEUE_H_
