// The FIFO of receives posted on an shm connection and not yet filled.
#ifndef XFER_TRANSPORT_SHM_RECV_QUEUE_H_
#define XFER_TRANSPORT_SHM_RECV_QUEUE_H_

#include <cstddef>
#include <utility>
#include <vector>

#include "transport/fifo_ring.h"
#include "xfer/transfer.h"

namespace xfer::transport::shm {

// One posted receive. The buffer and the request belong to the caller, who
// keeps them alive until the request completes.
struct PostedRecv {
  void* buffer = nullptr;
  size_t capacity = 0;
  TransferRequest* request = nullptr;
};

// The posted receives, oldest first. Steady-state posting allocates nothing
// (FifoRing reuses its slots). Not thread-safe: the channel guards it with
// its mutex.
class RecvQueue {
 public:
  bool empty() const { return ring_.empty(); }
  size_t size() const { return ring_.size(); }

  // REQUIRES: !empty().
  const PostedRecv& front() const { return ring_.front(); }
  void pop_front() { ring_.PopFront(); }
  void push_back(const PostedRecv& recv) { ring_.Push(recv); }

  // Removes and returns every entry, oldest first.
  std::vector<PostedRecv> TakeAll() {
    std::vector<PostedRecv> all;
    all.reserve(ring_.size());
    while (!ring_.empty()) all.push_back(ring_.PopFront());
    return all;
  }

 private:
  FifoRing<PostedRecv> ring_;
};

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_RECV_QUEUE_H_
