#include "transport/verbs/notification_outbox.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <cassert>
#include <cerrno>
#include <cstring>

#include "verbs/memory_resources.h"

namespace xfer::transport::verbs {

NotificationOutbox::NotificationOutbox(uint32_t slots) : slots_(slots) {
  free_.reserve(slots);
  for (uint32_t i = slots; i > 0; --i) free_.push_back(i - 1);
}

NotificationOutbox::~NotificationOutbox() {
  mr_.reset();  // deregister before the pages go
  if (memory_ != nullptr) munmap(memory_, memory_bytes_);
}

Result<std::unique_ptr<NotificationOutbox>> NotificationOutbox::Create(ibv_pd* pd,
                                                                       uint32_t slots) {
  std::unique_ptr<NotificationOutbox> outbox(new NotificationOutbox(slots));
  outbox->memory_bytes_ = size_t{slots} * kSlotBytes;
  void* memory = mmap(nullptr, outbox->memory_bytes_, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (memory == MAP_FAILED) {
    return ResourceExhausted(fmt::format("verbs: mapping {} bytes of notification buffers: {}",
                                         outbox->memory_bytes_, std::strerror(errno)));
  }
  outbox->memory_ = static_cast<uint8_t*>(memory);
  auto mr = ::xfer::verbs::RegisterMemoryRegion(pd, outbox->memory_, outbox->memory_bytes_, 0);
  if (!mr.ok()) return mr.status().WithContext("verbs: registering notification buffers");
  outbox->mr_ = std::move(mr.value());
  return outbox;
}

Result<uint32_t> NotificationOutbox::Take(std::span<const uint8_t> message) {
  assert(message.size() <= kSlotBytes);
  uint32_t slot = kNoSlot;
  {
    std::lock_guard lock(mu_);
    if (free_.empty()) {
      return ResourceExhausted(fmt::format(
          "verbs: {} notifications are already in flight on this connection; retry once some "
          "complete",
          slots_));
    }
    slot = free_.back();
    free_.pop_back();
  }
  std::memcpy(memory_ + size_t{slot} * kSlotBytes, message.data(), message.size());
  return slot;
}

void NotificationOutbox::Give(uint32_t slot) {
  if (slot == kNoSlot) return;
  assert(slot < slots_);
  std::lock_guard lock(mu_);
  free_.push_back(slot);
}

uint64_t NotificationOutbox::Address(uint32_t slot) const {
  return reinterpret_cast<uint64_t>(memory_ + size_t{slot} * kSlotBytes);
}

}  // namespace xfer::transport::verbs
