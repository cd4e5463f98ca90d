// The receive buffers ("slots") one verbs endpoint keeps posted on each of
// its queue pairs for the peer's SENDs.
//
// Why buffers of our own rather than the caller's receive buffers: a verbs
// RECV is bound to one QP, while a PostRecv must take the next message from
// whichever stream it arrives on; and a SEND longer than the RECV it lands
// in breaks the QP (IBV_WC_LOC_LEN_ERR), while the engine's contract is that
// a too-long message fails only that receive. So SENDs land here, in pieces
// of at most slot_bytes, and are copied into the caller's buffer
// (receive_path.h). Costs: one copy per received byte, and slots_per_qp x
// slot_bytes of registered memory per QP.
//
// Slot s of QP q is bytes [(q * slots_per_qp + s) * slot_bytes, +slot_bytes)
// of one registered allocation; its WR id is RecvWrId(q, s).
#ifndef XFER_TRANSPORT_VERBS_RECEIVE_SLOTS_H_
#define XFER_TRANSPORT_VERBS_RECEIVE_SLOTS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "verbs/ib_handles.h"
#include "xfer/status.h"

namespace xfer::transport::verbs {

// Work-request ids: bit 63 tells receive slots from send-queue WRs
// (send_queue.h), because a failed completion's opcode is undefined.
inline constexpr uint64_t kRecvWrIdTag = uint64_t{1} << 63;

constexpr uint64_t RecvWrId(uint32_t qp, uint32_t slot) {
  return kRecvWrIdTag | (uint64_t{qp} << 32) | slot;
}
constexpr bool IsRecvWrId(uint64_t wr_id) { return (wr_id & kRecvWrIdTag) != 0; }
constexpr uint32_t RecvWrIdQp(uint64_t wr_id) {
  return static_cast<uint32_t>((wr_id & ~kRecvWrIdTag) >> 32);
}
constexpr uint32_t RecvWrIdSlot(uint64_t wr_id) { return static_cast<uint32_t>(wr_id); }

// Not thread-safe by itself except Post (ibv_post_recv is); the owner
// serialises the rest. Holds an MR: destroy before the PD.
class ReceiveSlots {
 public:
  // Allocates and registers (LOCAL_WRITE) qp_count x slots_per_qp slots of
  // slot_bytes. Errors: kResourceExhausted.
  static Result<std::unique_ptr<ReceiveSlots>> Create(ibv_pd* pd, uint32_t qp_count,
                                                      uint32_t slots_per_qp, uint32_t slot_bytes);
  ~ReceiveSlots();
  ReceiveSlots(const ReceiveSlots&) = delete;
  ReceiveSlots& operator=(const ReceiveSlots&) = delete;

  // Posts slot `slot` on `qp` (QP number `qp_index`). Errors: kIoError
  // (ibv_post_recv; the QP is in RESET or ERROR, or its receive queue is
  // full).
  Status Post(ibv_qp* qp, uint32_t qp_index, uint32_t slot);
  // Posts every slot of `qp`. Errors: as Post.
  Status PostAll(ibv_qp* qp, uint32_t qp_index);

  // The first byte of a slot. REQUIRES: indices in range.
  const uint8_t* Data(uint32_t qp_index, uint32_t slot) const;

  uint32_t slot_bytes() const { return slot_bytes_; }
  uint32_t slots_per_qp() const { return slots_per_qp_; }

 private:
  ReceiveSlots(uint32_t qp_count, uint32_t slots_per_qp, uint32_t slot_bytes);

  [[maybe_unused]] const uint32_t qp_count_;  // read only by the bounds assert
  const uint32_t slots_per_qp_;
  const uint32_t slot_bytes_;
  uint8_t* memory_ = nullptr;  // page-aligned, owned
  size_t memory_bytes_ = 0;
  ::xfer::verbs::MemoryRegionHandle mr_;  // released before memory_ is freed
};

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_RECEIVE_SLOTS_H_
