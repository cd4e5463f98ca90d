#include "transport/shm/device_completions.h"

#include <system_error>

#include <fmt/format.h>

#include "common/request_access.h"

namespace xfer::transport::shm {

Status DeviceCompletions::Push(PendingCompletion pending) {
  std::lock_guard lock(mu_);
  if (!thread_.joinable()) {
    stopping_ = false;
    try {
      thread_ = std::thread([this] { Loop(); });
    } catch (const std::system_error& e) {
      return ResourceExhausted(fmt::format("shm: cannot start the device completion thread: {}",
                                           e.what()));
    }
  }
  queued_.fetch_add(1, std::memory_order_acq_rel);
  queue_.push_back(std::move(pending));
  wake_.notify_one();
  return Status::Ok();
}

void DeviceCompletions::Drain() {
  std::thread thread;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    thread = std::move(thread_);
    wake_.notify_all();
  }
  if (thread.joinable()) thread.join();
}

void DeviceCompletions::Loop() {
  for (;;) {
    PendingCompletion pending;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything completed
      pending = std::move(queue_.front());
      queue_.pop_front();
    }
    Finish(pending);
    queued_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void DeviceCompletions::Finish(PendingCompletion& pending) {
  Status status = pending.status;
  for (const auto& [stream, mark] : pending.marks) {
    Status done = stream->WaitMark(mark).WithContext("shm: device copy");
    if (status.ok()) status = done;
  }
  // The copies are done: the peer's Revoke may now see them ended.
  for (RevocationSlot* slot : pending.admitted) EndCopy(*slot);
  if (pending.then && status.ok()) status = pending.then();
  internal::RequestAccess::Complete(*pending.request, status, status.ok() ? pending.bytes : 0);
}

}  // namespace xfer::transport::shm
