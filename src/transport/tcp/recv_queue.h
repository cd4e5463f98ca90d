// The receives posted for the peer's SEND frames, filled in posting order.
#ifndef XFER_TRANSPORT_TCP_RECV_QUEUE_H_
#define XFER_TRANSPORT_TCP_RECV_QUEUE_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>

#include "common/clock.h"
#include "transport/fifo_ring.h"
#include "xfer/status.h"
#include "xfer/transfer.h"

namespace xfer::transport::tcp {

struct PostedRecv {
  TransferRequest* request = nullptr;  // owned by the caller, in flight
  uint8_t* buffer = nullptr;           // registered local memory
  size_t capacity = 0;
};

// Thread-safe. The posting threads push, the responder pops.
class RecvQueue {
 public:
  // Arms `request` (one part) and queues it. Errors: kConnectionLost after
  // Close(); the request is then untouched.
  Status Post(void* buffer, size_t capacity, TransferRequest& request);

  // The oldest posted receive, waiting for one until `deadline`. nullopt
  // on timeout or once closed.
  std::optional<PostedRecv> WaitPop(Deadline deadline);

  // Refuses further posts and wakes WaitPop. Idempotent.
  void Close();

  // Finishes every queued receive with `status`. REQUIRES: Close() was
  // called, so nothing can be queued afterwards.
  void FailAll(const Status& status);

 private:
  std::mutex mu_;
  std::condition_variable posted_;
  bool closed_ = false;              // GUARDED_BY(mu_)
  FifoRing<PostedRecv> queue_{512};  // GUARDED_BY(mu_); perftest's rx_depth
};

}  // namespace xfer::transport::tcp

#endif  // XFER_TRANSPORT_TCP_RECV_QUEUE_H_
