#include "transport/tcp/recv_queue.h"

#include <chrono>

#include "common/request_access.h"

namespace xfer::transport::tcp {

Status RecvQueue::Post(void* buffer, size_t capacity, TransferRequest& request) {
  {
    std::lock_guard lock(mu_);
    if (closed_) return ConnectionLost("tcp connection is closed");
    // Armed under the lock: the responder may fill it as soon as it is queued.
    internal::RequestAccess::Start(request, 1);
    queue_.Push({&request, static_cast<uint8_t*>(buffer), capacity});
  }
  posted_.notify_one();
  return Status::Ok();
}

std::optional<PostedRecv> RecvQueue::WaitPop(Deadline deadline) {
  std::unique_lock lock(mu_);
  while (!closed_ && queue_.empty()) {
    int ms = deadline.remaining_ms();
    if (ms == 0) return std::nullopt;
    if (ms < 0) {
      posted_.wait(lock);
    } else {
      posted_.wait_for(lock, std::chrono::milliseconds(ms));
    }
  }
  if (closed_) return std::nullopt;
  return queue_.PopFront();
}

void RecvQueue::Close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  posted_.notify_all();
}

void RecvQueue::FailAll(const Status& status) {
  std::lock_guard lock(mu_);
  while (!queue_.empty()) {
    internal::RequestAccess::Complete(*queue_.PopFront().request, status, 0);
  }
}

}  // namespace xfer::transport::tcp
