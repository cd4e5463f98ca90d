// A growable ring buffer used as a FIFO by the transports: in-flight records,
// posted receives. Pushing reuses slots, so steady-state traffic
// allocates nothing; the storage doubles only when the queue outgrows it.
#ifndef XFER_TRANSPORT_FIFO_RING_H_
#define XFER_TRANSPORT_FIFO_RING_H_

#include <cassert>
#include <cstddef>
#include <utility>
#include <vector>

namespace xfer::transport {

// Not thread-safe: the owner guards it with its own mutex.
// REQUIRES: T is default-constructible and copyable.
template <typename T>
class FifoRing {
 public:
  explicit FifoRing(size_t initial_capacity = 64)
      : slots_(initial_capacity > 0 ? initial_capacity : 1) {}

  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }

  void Push(const T& value) {
    if (count_ == slots_.size()) Grow();
    slots_[(head_ + count_) % slots_.size()] = value;
    ++count_;
  }

  // REQUIRES: !empty().
  const T& front() const {
    assert(count_ > 0);
    return slots_[head_];
  }

  // REQUIRES: !empty().
  T PopFront() {
    assert(count_ > 0);
    T value = slots_[head_];
    head_ = (head_ + 1) % slots_.size();
    --count_;
    return value;
  }

 private:
  void Grow() {
    std::vector<T> bigger(slots_.size() * 2);
    for (size_t i = 0; i < count_; ++i) bigger[i] = slots_[(head_ + i) % slots_.size()];
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  size_t head_ = 0;
  size_t count_ = 0;
};

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_FIFO_RING_H_
