// One-sided transfers: what to move, and the handle that reports completion.
#ifndef XFER_TRANSFER_H_
#define XFER_TRANSFER_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "xfer/export.h"
#include "xfer/status.h"

namespace xfer {

namespace internal {
class RequestAccess;
class CompletionWatch;
}  // namespace internal

enum class OpCode : uint8_t {
  kRead = 0,   // copy remote -> local
  kWrite = 1,  // copy local -> remote
};

// The longest notification a request carries or Engine::Notify sends.
inline constexpr size_t kMaxNotificationBytes = 4096;

// One contiguous piece of a batch. `local` must lie inside a region
// registered with the local engine; [remote, remote + length) must lie inside
// one region the peer registered with the access the operation needs
// (kRemoteWrite for kWrite, kRemoteRead for kRead). Zero-length entries are
// rejected.
struct TransferEntry {
  void* local = nullptr;
  uint64_t remote = 0;
  size_t length = 0;
};

// The completion handle of one asynchronous operation: a batch of READs or
// WRITEs, one send or one receive.
//
// The caller owns it and passes it to Engine::Submit / PostSend / PostRecv.
// While in flight it must stay alive and must not be reused; once Test()
// returns anything but kInProgress it may be reused for another operation.
// Destroying an in-flight request is a bug (the destructor aborts in debug
// builds). It cannot be moved or copied because the transport holds its
// address.
//
// Thread-safety: Test() and Wait() may be called from any one thread while a
// transport completes the request from another.
class XFER_API TransferRequest {
 public:
  TransferRequest() = default;
  ~TransferRequest();
  TransferRequest(const TransferRequest&) = delete;
  TransferRequest& operator=(const TransferRequest&) = delete;

  // kInProgress while in flight; otherwise the final status: OK, or the first
  // error any part of the operation hit. A request never submitted is OK.
  Status Test() const;

  // Blocks until the request finishes or `timeout` passes. Returns the final
  // status, or kTimeout (the request then stays in flight: wait again, or
  // disconnect the peer, which fails it with kConnectionLost). A request
  // that finished with kTimeout (SubmitOptions::timeout) returns it too:
  // done() tells the two apart.
  Status Wait(std::chrono::nanoseconds timeout) const;

  // True once the request has finished (successfully or not).
  bool done() const { return !InFlight(state_.load(std::memory_order_acquire)); }

  // Bytes moved by the finished operation: the batch total for READ/WRITE and
  // send, the received message length for a receive.
  size_t bytes() const { return bytes_.load(std::memory_order_acquire); }

 private:
  friend class internal::RequestAccess;
  // The low bit is "in flight"; kInFlightSleeping also says that a Wait()
  // sleeps on the word, so that a request nobody sleeps on completes
  // without a system call.
  enum State : uint32_t { kIdle = 0, kInFlight = 1, kDone = 2, kInFlightSleeping = 3 };
  static bool InFlight(uint32_t state) { return (state & 1) != 0; }

  // 32 bits: Wait() sleeps on it as a futex word. It is the only field the
  // completer touches after the request is done (in one exchange), because
  // the owner may destroy a done request at once.
  mutable std::atomic<uint32_t> state_{kIdle};
  std::atomic<uint32_t> pending_parts_{0};
  std::atomic<size_t> bytes_{0};
  // Set (release) after error_ is written; lets the success path skip the
  // mutex entirely, so posting and polling stay lock-free.
  std::atomic<bool> failed_{false};
  mutable std::mutex error_mu_;  // guards error_; taken only on failure
  Status error_;
  // Told of the completion before it is published, when a deadline watches
  // the request (SubmitOptions::timeout); null otherwise.
  std::atomic<internal::CompletionWatch*> watch_{nullptr};
};

}  // namespace xfer

#endif  // XFER_TRANSFER_H_
