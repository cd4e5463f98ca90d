// TransferRequest's completion protocol, shared by every transport through
// internal::RequestAccess.
#include <immintrin.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <climits>

#include "common/request_access.h"
#include "xfer/transfer.h"

namespace xfer {
namespace {

// Sleeps while *word == expected, at most `timeout`; returns early on a
// wake-up, a signal, or when the word already differs.
void FutexWait(const std::atomic<uint32_t>& word, uint32_t expected,
               std::chrono::nanoseconds timeout) {
  const auto ns = std::max<int64_t>(timeout.count(), 0);
  timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  syscall(SYS_futex, reinterpret_cast<const uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, &ts,
          nullptr, 0);
}

void FutexWakeAll(std::atomic<uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr,
          nullptr, 0);
}

}  // namespace

TransferRequest::~TransferRequest() {
  assert(!InFlight(state_.load(std::memory_order_acquire)) &&
         "TransferRequest destroyed while in flight");
}

Status TransferRequest::Test() const {
  if (InFlight(state_.load(std::memory_order_acquire))) return Status::InProgress();
  if (!failed_.load(std::memory_order_acquire)) return Status::Ok();
  std::lock_guard lock(error_mu_);
  return error_;
}

Status TransferRequest::Wait(std::chrono::nanoseconds timeout) const {
  // Three phases. Spin first: completions on shared memory and loopback
  // land within microseconds, and a latency benchmark must not pay a
  // scheduler wake-up. Then yield for up to a millisecond, which still
  // answers a ping-pong promptly. Then sleep on the state word: a waiter
  // that keeps a core busy starves the progress thread that will complete
  // it on a 2-core machine (a tcp READ batch ran at half speed that way).
  constexpr int kSpins = 2000;
  constexpr auto kYieldFor = std::chrono::milliseconds(1);
  for (int i = 0; i < kSpins; ++i) {
    if (done()) return Test();
    _mm_pause();
  }
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + timeout;
  while (!done()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return Timeout("transfer did not complete within the timeout");
    if (now - start < kYieldFor) {
      sched_yield();
      continue;
    }
    // Announced in the word itself: a completer's exchange either sees
    // kInFlightSleeping and wakes us, or came first, and then the CAS
    // fails (or the futex returns at once) on kDone.
    uint32_t expected = kInFlight;
    if (state_.compare_exchange_strong(expected, kInFlightSleeping, std::memory_order_acquire) ||
        expected == kInFlightSleeping) {
      FutexWait(state_, kInFlightSleeping, deadline - now);
    }
  }
  return Test();
}

namespace internal {

void RequestAccess::Start(TransferRequest& request, uint32_t parts) {
  assert(parts > 0);
  // In flight here means held: the engine checks every request it hands a
  // transport is not in flight, except one it holds.
  if (TransferRequest::InFlight(request.state_.load(std::memory_order_relaxed))) {
    request.pending_parts_.fetch_add(parts, std::memory_order_relaxed);
    return;
  }
  if (request.failed_.load(std::memory_order_relaxed)) {
    std::lock_guard lock(request.error_mu_);
    request.error_ = Status::Ok();
    request.failed_.store(false, std::memory_order_relaxed);
  }
  request.bytes_.store(0, std::memory_order_relaxed);
  request.pending_parts_.store(parts, std::memory_order_relaxed);
  request.state_.store(TransferRequest::kInFlight, std::memory_order_release);
}

void RequestAccess::Hold(TransferRequest& request) { Start(request, 1); }

void RequestAccess::Abandon(TransferRequest& request) {
  assert(request.pending_parts_.load(std::memory_order_relaxed) == 1);
  request.pending_parts_.store(0, std::memory_order_relaxed);
  request.state_.store(TransferRequest::kIdle, std::memory_order_release);
}

void RequestAccess::FinishPart(TransferRequest& request, const Status& status, size_t bytes) {
  if (!status.ok()) {
    std::lock_guard lock(request.error_mu_);
    if (request.error_.ok()) request.error_ = status;
    request.failed_.store(true, std::memory_order_release);
  }
  request.bytes_.fetch_add(bytes, std::memory_order_relaxed);
  if (request.pending_parts_.fetch_sub(1, std::memory_order_acq_rel) == 1) MarkDone(request);
}

void RequestAccess::Complete(TransferRequest& request, const Status& status, size_t bytes) {
  // A held request may have other parts still pending (the hold, another
  // post's): then this is one part of several. Acquire: when it is the
  // last, the bytes and error of the parts finished before are seen here.
  if (request.pending_parts_.load(std::memory_order_acquire) != 1) {
    FinishPart(request, status, bytes);
    return;
  }
  if (!status.ok()) {
    std::lock_guard lock(request.error_mu_);
    if (request.error_.ok()) request.error_ = status;
    request.failed_.store(true, std::memory_order_release);
  }
  // Only this thread writes the count now: a load and a store, no
  // read-modify-write (0 before, unless other parts of a held request
  // finished first).
  request.bytes_.store(request.bytes_.load(std::memory_order_relaxed) + bytes,
                       std::memory_order_relaxed);
  request.pending_parts_.store(0, std::memory_order_relaxed);
  MarkDone(request);
}

void RequestAccess::Preempt(TransferRequest& request, const Status& status) {
  std::lock_guard lock(request.error_mu_);
  if (!request.error_.ok() || !TransferRequest::InFlight(request.state_.load())) return;
  request.error_ = status;
  request.failed_.store(true, std::memory_order_release);
}

void RequestAccess::MarkDone(TransferRequest& request) {
  // The watch first: it must stop using the request before the owner may
  // destroy it. Only the completing thread gets here.
  if (CompletionWatch* watch = request.watch_.load(std::memory_order_acquire)) {
    request.watch_.store(nullptr, std::memory_order_relaxed);
    watch->Finished();
  }
  // One exchange, and no access to the request after it: its owner may
  // see kDone and destroy it at once (ThreadSanitizer found the read of a
  // separate sleeper count that used to follow). The wake-up may then name
  // freed memory, which a private FUTEX_WAKE never dereferences: it only
  // hashes the address, as glibc's mutexes rely on.
  const uint32_t before = request.state_.exchange(TransferRequest::kDone, std::memory_order_acq_rel);
  if (before == TransferRequest::kInFlightSleeping) FutexWakeAll(request.state_);
}

}  // namespace internal
}  // namespace xfer
