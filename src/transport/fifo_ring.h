// A bounded ring buffer used as a FIFO by the transports: in-flight records,
// posted receives, backlogs. Pushing reuses slots, so steady-state traffic
// allocates nothing; the storage doubles, up to `limit` entries, only when
// the queue outgrows it. The owner checks room() before pushing: a ring
// never holds more than its limit.
#ifndef XFER_TRANSPORT_FIFO_RING_H_
#define XFER_TRANSPORT_FIFO_RING_H_

#include <cassert>
#include <algorithm>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

namespace xfer::transport {

// Not thread-safe: the owner guards it with its own mutex.
// REQUIRES: T is default-constructible and copyable.
template <typename T>
class FifoRing {
 public:
  // REQUIRES: 1 <= initial_capacity <= limit.
  explicit FifoRing(size_t initial_capacity = 64,
                    size_t limit = std::numeric_limits<size_t>::max())
      : slots_(std::max<size_t>(initial_capacity, 1)), limit_(std::max<size_t>(limit, 1)) {}

  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  size_t limit() const { return limit_; }
  size_t room() const { return limit_ - count_; }

  // REQUIRES: room() > 0.
  void Push(const T& value) {
    assert(count_ < limit_);
    if (count_ == slots_.size()) Grow();
    slots_[(head_ + count_) % slots_.size()] = value;
    ++count_;
  }

  // REQUIRES: !empty().
  const T& front() const {
    assert(count_ > 0);
    return slots_[head_];
  }

  // The i-th oldest. REQUIRES: i < size().
  const T& operator[](size_t i) const {
    assert(i < count_);
    return slots_[(head_ + i) % slots_.size()];
  }

  // Drops every entry, keeping the storage.
  void Clear() {
    head_ = 0;
    count_ = 0;
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
    std::vector<T> bigger(std::min(slots_.size() * 2, limit_));
    for (size_t i = 0; i < count_; ++i) bigger[i] = slots_[(head_ + i) % slots_.size()];
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  size_t limit_;
  size_t head_ = 0;
  size_t count_ = 0;
};

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_FIFO_RING_H_
