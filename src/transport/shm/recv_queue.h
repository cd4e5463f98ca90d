// The FIFO of receives posted on an shm connection and not yet filled.
#ifndef XFER_TRANSPORT_SHM_RECV_QUEUE_H_
#define XFER_TRANSPORT_SHM_RECV_QUEUE_H_

#include <cstddef>
#include <utility>
#include <vector>

#include "xfer/transfer.h"

namespace xfer::transport::shm {

// One posted receive. The buffer and the request belong to the caller, who
// keeps them alive until the request completes.
struct PostedRecv {
  void* buffer = nullptr;
  size_t capacity = 0;
  TransferRequest* request = nullptr;
};

// A ring that allocates only when it grows past its largest size so far, so
// that posting receives in steady state allocates nothing (std::deque would
// allocate a block every few dozen posts). Not thread-safe: the channel
// guards it with its mutex.
class RecvQueue {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  // REQUIRES: !empty().
  const PostedRecv& front() const { return slots_[head_]; }
  void pop_front() {
    head_ = (head_ + 1) % slots_.size();
    --size_;
  }

  void push_back(const PostedRecv& recv) {
    if (size_ == slots_.size()) Grow();
    slots_[(head_ + size_) % slots_.size()] = recv;
    ++size_;
  }

  // Removes and returns every entry, oldest first.
  std::vector<PostedRecv> TakeAll() {
    std::vector<PostedRecv> all;
    all.reserve(size_);
    while (!empty()) {
      all.push_back(front());
      pop_front();
    }
    return all;
  }

 private:
  void Grow() {
    std::vector<PostedRecv> bigger(slots_.empty() ? 64 : slots_.size() * 2);
    for (size_t i = 0; i < size_; ++i) bigger[i] = slots_[(head_ + i) % slots_.size()];
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<PostedRecv> slots_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_RECV_QUEUE_H_
