#include "transport/verbs/receive_slots.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <cassert>
#include <cerrno>
#include <cstring>

#include "verbs/memory_resources.h"

namespace xfer::transport::verbs {

ReceiveSlots::ReceiveSlots(uint32_t qp_count, uint32_t slots_per_qp, uint32_t slot_bytes)
    : qp_count_(qp_count), slots_per_qp_(slots_per_qp), slot_bytes_(slot_bytes) {}

ReceiveSlots::~ReceiveSlots() {
  mr_.reset();  // deregister before the pages go
  if (memory_ != nullptr) munmap(memory_, memory_bytes_);
}

Result<std::unique_ptr<ReceiveSlots>> ReceiveSlots::Create(ibv_pd* pd, uint32_t qp_count,
                                                           uint32_t slots_per_qp,
                                                           uint32_t slot_bytes) {
  std::unique_ptr<ReceiveSlots> slots(new ReceiveSlots(qp_count, slots_per_qp, slot_bytes));
  slots->memory_bytes_ = size_t{qp_count} * slots_per_qp * slot_bytes;
  // Anonymous pages, faulted in now: registration pins them anyway.
  void* memory = mmap(nullptr, slots->memory_bytes_, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (memory == MAP_FAILED) {
    return ResourceExhausted(fmt::format("verbs: mapping {} bytes of receive buffers: {}",
                                         slots->memory_bytes_, std::strerror(errno)));
  }
  slots->memory_ = static_cast<uint8_t*>(memory);
  auto mr = ::xfer::verbs::RegisterMemoryRegion(pd, slots->memory_, slots->memory_bytes_,
                                                IBV_ACCESS_LOCAL_WRITE);
  if (!mr.ok()) return mr.status().WithContext("verbs: registering receive buffers");
  slots->mr_ = std::move(mr.value());
  return slots;
}

const uint8_t* ReceiveSlots::Data(uint32_t qp_index, uint32_t slot) const {
  assert(qp_index < qp_count_ && slot < slots_per_qp_);
  return memory_ + (size_t{qp_index} * slots_per_qp_ + slot) * slot_bytes_;
}

Status ReceiveSlots::Post(ibv_qp* qp, uint32_t qp_index, uint32_t slot) {
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uint64_t>(Data(qp_index, slot));
  sge.length = slot_bytes_;
  sge.lkey = mr_->lkey;
  ibv_recv_wr wr{};
  wr.wr_id = RecvWrId(qp_index, slot);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (int rc = ibv_post_recv(qp, &wr, &bad); rc != 0) {
    return IoError(fmt::format("verbs: ibv_post_recv on stream {}: {}", qp_index,
                               std::strerror(rc)));
  }
  return Status::Ok();
}

Status ReceiveSlots::PostAll(ibv_qp* qp, uint32_t qp_index) {
  for (uint32_t slot = 0; slot < slots_per_qp_; ++slot) {
    XFER_RETURN_IF_ERROR(Post(qp, qp_index, slot));
  }
  return Status::Ok();
}

}  // namespace xfer::transport::verbs
