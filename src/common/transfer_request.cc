// TransferRequest's completion protocol, shared by every transport through
// internal::RequestAccess.
#include <immintrin.h>
#include <sched.h>

#include <cassert>
#include <chrono>

#include "common/request_access.h"
#include "xfer/transfer.h"

namespace xfer {

TransferRequest::~TransferRequest() {
  assert(state_.load(std::memory_order_acquire) != kInFlight &&
         "TransferRequest destroyed while in flight");
}

Status TransferRequest::Test() const {
  if (state_.load(std::memory_order_acquire) == kInFlight) return Status::InProgress();
  if (!failed_.load(std::memory_order_acquire)) return Status::Ok();
  std::lock_guard lock(error_mu_);
  return error_;
}

Status TransferRequest::Wait(std::chrono::nanoseconds timeout) const {
  // Spin first: completions on shared memory and loopback land within
  // microseconds, and a latency benchmark must not pay a scheduler wake-up.
  // Then yield, so that a waiting thread does not starve the progress
  // thread that will complete it on a 2-core machine.
  constexpr int kSpins = 2000;
  for (int i = 0; i < kSpins; ++i) {
    if (done()) return Test();
    _mm_pause();
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return Timeout("transfer did not complete within the timeout");
    }
    sched_yield();
  }
  return Test();
}

namespace internal {

void RequestAccess::Start(TransferRequest& request, uint32_t parts) {
  assert(parts > 0);
  if (request.failed_.load(std::memory_order_relaxed)) {
    std::lock_guard lock(request.error_mu_);
    request.error_ = Status::Ok();
    request.failed_.store(false, std::memory_order_relaxed);
  }
  request.bytes_.store(0, std::memory_order_relaxed);
  request.pending_parts_.store(parts, std::memory_order_relaxed);
  request.state_.store(TransferRequest::kInFlight, std::memory_order_release);
}

void RequestAccess::FinishPart(TransferRequest& request, const Status& status, size_t bytes) {
  if (!status.ok()) {
    std::lock_guard lock(request.error_mu_);
    if (request.error_.ok()) request.error_ = status;
    request.failed_.store(true, std::memory_order_release);
  }
  request.bytes_.fetch_add(bytes, std::memory_order_relaxed);
  if (request.pending_parts_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    request.state_.store(TransferRequest::kDone, std::memory_order_release);
  }
}

void RequestAccess::Complete(TransferRequest& request, const Status& status, size_t bytes) {
  assert(request.pending_parts_.load(std::memory_order_relaxed) == 1);
  if (!status.ok()) {
    std::lock_guard lock(request.error_mu_);
    request.error_ = status;
    request.failed_.store(true, std::memory_order_release);
  }
  request.bytes_.store(bytes, std::memory_order_relaxed);
  request.pending_parts_.store(0, std::memory_order_relaxed);
  request.state_.store(TransferRequest::kDone, std::memory_order_release);
}

}  // namespace internal
}  // namespace xfer
