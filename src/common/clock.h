// Monotonic time and deadlines. Every blocking wait in xfer takes a Deadline
// so that a dead peer is reported, never waited for.
#ifndef XFER_COMMON_CLOCK_H_
#define XFER_COMMON_CLOCK_H_

#include <time.h>

#include <chrono>
#include <cstdint>

namespace xfer {

// Nanoseconds on CLOCK_MONOTONIC_RAW: not slewed by NTP, so intervals are
// true elapsed time. Cheap (vDSO), callable from hot loops.
inline uint64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

// A point in time after which a wait gives up. Value type.
class Deadline {
 public:
  static Deadline After(std::chrono::nanoseconds timeout) {
    return Deadline(std::chrono::steady_clock::now() + timeout);
  }
  static Deadline Never() { return Deadline(std::chrono::steady_clock::time_point::max()); }

  bool expired() const { return std::chrono::steady_clock::now() >= at_; }
  Deadline EarlierOf(Deadline other) const { return at_ <= other.at_ ? *this : other; }

  // Milliseconds left, clamped to [0, INT32_MAX]; for poll(2).
  int remaining_ms() const {
    if (at_ == std::chrono::steady_clock::time_point::max()) return -1;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        at_ - std::chrono::steady_clock::now());
    if (left.count() <= 0) return 0;
    if (left.count() > INT32_MAX) return INT32_MAX;
    return static_cast<int>(left.count()) + 1;  // round up: never spin at 0
  }

 private:
  explicit Deadline(std::chrono::steady_clock::time_point at) : at_(at) {}
  std::chrono::steady_clock::time_point at_;
};

}  // namespace xfer

#endif  // XFER_COMMON_CLOCK_H_
