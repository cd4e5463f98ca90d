// Registered memory the verbs transport sends notifications from. A SEND's
// source must lie in a memory region, and PostNotify copies the caller's
// bytes (any memory, registered or not) before it returns: into a slot
// here, held until the SEND that carries it completes or is flushed.
#ifndef XFER_TRANSPORT_VERBS_NOTIFICATION_OUTBOX_H_
#define XFER_TRANSPORT_VERBS_NOTIFICATION_OUTBOX_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "verbs/ib_handles.h"
#include "xfer/status.h"
#include "xfer/transfer.h"

namespace xfer::transport::verbs {

// Thread-safe.
class NotificationOutbox {
 public:
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  static constexpr uint32_t kSlotBytes = kMaxNotificationBytes;

  // `slots` notifications may be in flight at once on the connection.
  // Errors: kResourceExhausted (memory, registration).
  static Result<std::unique_ptr<NotificationOutbox>> Create(ibv_pd* pd, uint32_t slots);
  ~NotificationOutbox();
  NotificationOutbox(const NotificationOutbox&) = delete;
  NotificationOutbox& operator=(const NotificationOutbox&) = delete;

  // Copies `message` (at most kSlotBytes) into a free slot and returns the
  // slot. Errors: kResourceExhausted when every slot is in flight (retry
  // once notifications complete).
  Result<uint32_t> Take(std::span<const uint8_t> message);
  // Returns a slot taken before. kNoSlot is ignored.
  void Give(uint32_t slot);

  uint64_t Address(uint32_t slot) const;
  uint32_t lkey() const { return mr_->lkey; }

 private:
  explicit NotificationOutbox(uint32_t slots);

  const uint32_t slots_;
  size_t memory_bytes_ = 0;
  uint8_t* memory_ = nullptr;
  ::xfer::verbs::MemoryRegionHandle mr_;
  std::mutex mu_;
  std::vector<uint32_t> free_;  // GUARDED_BY(mu_)
};

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_NOTIFICATION_OUTBOX_H_
