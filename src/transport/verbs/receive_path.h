// Two-sided receiving: fills the caller's posted receives, in posting
// order, with the peer's messages as they arrive in the receive slots
// (receive_slots.h), with the tcp transport's semantics (engine.h):
//   - a message goes to the oldest posted receive when its first piece
//     arrives; messages of one stream arrive in their send order, messages
//     of different streams in no fixed order;
//   - a message longer than that receive fails it with kInvalidArgument and
//     is dropped; the connection lives on;
//   - a message nobody posts a receive for within io_timeout, or one whose
//     sender goes silent half-way for io_timeout, fails the connection with
//     kTimeout (until then its pieces stay in their slots, and the peer's
//     NIC retries further SENDs on that QP: RNR).
//
// Wire: a message of N bytes is SEND_WITH_IMM pieces of at most slot_bytes,
// back to back on one QP, each carrying N as its immediate value (so the
// receiver needs no header and can check every piece). A notification
// (Endpoint::PostNotify) is the same, its immediate value N |
// kNotificationImm: it needs no posted receive and goes to the connection's
// NotificationSink once whole, in order with the stream's messages (one
// stalled for want of a receive holds the notifications behind it).
#ifndef XFER_TRANSPORT_VERBS_RECEIVE_PATH_H_
#define XFER_TRANSPORT_VERBS_RECEIVE_PATH_H_

#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "transport/fifo_ring.h"
#include "transport/notification_sink.h"
#include "transport/verbs/connection_state.h"
#include "transport/verbs/receive_slots.h"
#include "xfer/status.h"
#include "xfer/transfer.h"

namespace xfer::transport::verbs {

// The longest message PostSend takes (the tcp transport's limit too).
inline constexpr uint64_t kMaxMessageBytes = uint64_t{1} << 30;
// Marks a notification's pieces in the immediate value; above every
// message length.
inline constexpr uint32_t kNotificationImm = uint32_t{1} << 31;
static_assert(kMaxMessageBytes < kNotificationImm);

// Thread-safe: posting threads call Post, the completion thread the rest.
class ReceivePath {
 public:
  // Called, possibly under internal locks, when the connection must die;
  // must not call back into this object.
  using FailFn = std::function<void(const Status&)>;

  // `slots`, `qps` (one per stream), `state` and `notifications` must
  // outlive the object.
  ReceivePath(ReceiveSlots& slots, std::vector<ibv_qp*> qps, const ConnectionState& state,
              NotificationSink& notifications, std::chrono::milliseconds io_timeout,
              FailFn fail);
  ReceivePath(const ReceivePath&) = delete;
  ReceivePath& operator=(const ReceivePath&) = delete;

  // Arms `request` (one part) and queues the receive; a message already
  // waiting lands in it at once, on this thread. Errors: the connection's
  // ClosedError() once it failed (the request is then untouched).
  Status Post(void* buffer, size_t capacity, TransferRequest& request);

  // A piece arrived in slot `slot` of stream `qp`: `length` bytes, with
  // the immediate value `imm` (host order) when `has_imm`. Copies out what
  // can be, reposts the slots it frees. A malformed piece fails the
  // connection (kProtocolError).
  void OnArrival(uint32_t qp, uint32_t slot, uint32_t length, bool has_imm, uint32_t imm);

  // Fails the connection with kTimeout when a message has waited for a
  // receive, or for its next piece, longer than io_timeout.
  void CheckTimeouts(uint64_t now_ns);

  // Finishes every posted receive (and any message half copied into one)
  // with `reason`; later Post calls fail. Idempotent.
  void FailAll(const Status& reason);

 private:
  struct PostedRecv {
    TransferRequest* request = nullptr;  // null: a message being dropped
    uint8_t* buffer = nullptr;
    size_t capacity = 0;
  };
  struct Piece {
    uint32_t slot = 0;
    uint32_t length = 0;
    uint32_t total = 0;  // the message's length (the immediate value, flag cleared)
    bool notification = false;
  };
  // One stream's arrivals and the message it is filling.
  struct Stream {
    FifoRing<Piece> pending{16};  // arrived, not yet copied out
    bool active = false;          // a message is being copied into `target`
    bool stalled = false;         // the head piece waits for a receive (in stalled_)
    PostedRecv target;
    bool notification = false;  // the message being copied is one, into `note`
    std::vector<uint8_t> note;  // kMaxNotificationBytes, allocated once
    uint64_t total = 0;
    uint64_t received = 0;
    uint64_t since_ns = 0;  // start of the current wait; 0 when none
  };

  // Copies out stream `q`'s pending pieces while receives allow.
  // REQUIRES: mu_ held. Returns a non-OK status when the connection must
  // fail.
  Status ProcessLocked(uint32_t q, uint64_t now_ns);
  // Gives the oldest posted receive to the message `piece` starts.
  // REQUIRES: mu_ held, posted_ not empty.
  void StartMessageLocked(Stream& stream, const Piece& piece);
  // Checks a piece's immediate value and length. Errors: kProtocolError.
  static Status CheckPiece(uint32_t qp, uint32_t length, bool has_imm, uint32_t imm);

  ReceiveSlots& slots_;
  const std::vector<ibv_qp*> qps_;
  const ConnectionState& state_;
  NotificationSink& notifications_;
  const std::chrono::milliseconds io_timeout_;
  const FailFn fail_;

  std::mutex mu_;
  bool closed_ = false;                    // GUARDED_BY(mu_)
  FifoRing<PostedRecv> posted_{512};       // GUARDED_BY(mu_); perftest's rx_depth
  FifoRing<uint32_t> stalled_{64};         // GUARDED_BY(mu_); streams, in stall order
  std::vector<Stream> streams_;            // GUARDED_BY(mu_)
};

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_RECEIVE_PATH_H_
