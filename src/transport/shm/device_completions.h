// The completion side of shm's device copies: a request whose copies are
// queued on CUDA streams completes once the stream marks made after them
// are reached, in posting order, on a thread of its own. So a stream of
// device requests runs back to back on the copy engine, with no host
// synchronisation between them (a synchronisation per 2 MiB block costs
// more than half of D2D's bandwidth on an H200).
#ifndef XFER_TRANSPORT_SHM_DEVICE_COMPLETIONS_H_
#define XFER_TRANSPORT_SHM_DEVICE_COMPLETIONS_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "cuda/device_runtime.h"
#include "transport/shm/revocation_table.h"
#include "xfer/status.h"
#include "xfer/transfer.h"

namespace xfer::transport::shm {

// One request waiting for its device copies. Built by the post (allocating:
// the device path is not the host path's zero-allocation hot path).
struct PendingCompletion {
  TransferRequest* request = nullptr;  // armed with one part
  Status status;                       // the post's own error, if it met one
  uint64_t bytes = 0;
  // Reached once the request's copies are done; none for a request whose
  // bytes moved already (host copies queued behind device ones for order).
  std::vector<std::pair<cuda::CopyStream*, uint32_t>> marks;
  // Peer regions admitted for the copies (BeginCopy), ended once they are
  // done, so that the peer's Revoke waits for them.
  std::vector<RevocationSlot*> admitted;
  // Run once the copies are done and the admissions ended, before the
  // request completes; its error becomes the request's (a notification
  // that follows the requests queued before it).
  std::function<Status()> then;
};

// Thread-safe. The streams and slots named in pending completions outlive
// Drain().
class DeviceCompletions {
 public:
  DeviceCompletions() = default;
  ~DeviceCompletions() { Drain(); }
  DeviceCompletions(const DeviceCompletions&) = delete;
  DeviceCompletions& operator=(const DeviceCompletions&) = delete;

  // Queues `pending` behind every request queued before; starts the thread
  // on first use. Errors: kResourceExhausted when the thread cannot start
  // (nothing queued; the caller still owns the request and its copies).
  Status Push(PendingCompletion pending);

  // Whether a request is queued: a request posted meanwhile must queue
  // behind it to complete in posting order. One atomic load.
  bool busy() const { return queued_.load(std::memory_order_acquire) != 0; }

  // Completes every queued request (waiting for its copies: device copies
  // cannot be abandoned half-way, and they end in bounded time), then stops
  // the thread. Idempotent; Push after Drain starts it again.
  void Drain();

 private:
  void Loop();
  static void Finish(PendingCompletion& pending);

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<PendingCompletion> queue_;  // GUARDED_BY(mu_)
  bool stopping_ = false;                // GUARDED_BY(mu_)
  std::thread thread_;                   // GUARDED_BY(mu_) until joined
  std::atomic<uint32_t> queued_{0};
};

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_DEVICE_COMPLETIONS_H_
