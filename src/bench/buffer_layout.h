// Where each message of a run lives in the local and remote buffers, laid
// out as perftest lays them out (../shared/reference/perftest.md §1.5, §2.2)
// so that cache behaviour matches: one slot per stream, and messages no
// larger than half a page cycle through the page at cache-line steps.
#ifndef XFER_BENCH_BUFFER_LAYOUT_H_
#define XFER_BENCH_BUFFER_LAYOUT_H_

#include <algorithm>
#include <cstdint>

namespace xfer::bench {

class BufferLayout {
 public:
  static constexpr uint64_t kCycleBuffer = 4096;  // perftest: the page size
  static constexpr uint64_t kCacheLine = 64;

  // `max_size`: the largest message of the run; `streams`: slots.
  BufferLayout(uint64_t max_size, uint32_t streams)
      : slot_bytes_(RoundUp(std::max(max_size, kCycleBuffer), kCycleBuffer)), streams_(streams) {}

  uint64_t total_bytes() const { return slot_bytes_ * streams_; }
  uint64_t slot_offset(uint32_t stream) const { return slot_bytes_ * stream; }

  // Offset inside a slot of the k-th message of `size` bytes: perftest's
  // increase_rem_addr, INC(size) = max(ROUND_UP(size, 64), 64), wrapping
  // every kCycleBuffer / INC messages; 0 for larger messages.
  // How many messages of `size` bytes MessageOffset cycles through.
  static uint64_t MessagesPerCycle(uint64_t size) {
    if (size > kCycleBuffer / 2) return 1;
    return kCycleBuffer / std::max(RoundUp(size, kCacheLine), kCacheLine);
  }

  static uint64_t MessageOffset(uint64_t size, uint64_t k) {
    if (size > kCycleBuffer / 2) return 0;
    const uint64_t inc = std::max(RoundUp(size, kCacheLine), kCacheLine);
    return (k % (kCycleBuffer / inc)) * inc;
  }

 private:
  static constexpr uint64_t RoundUp(uint64_t n, uint64_t unit) { return (n + unit - 1) / unit * unit; }
  uint64_t slot_bytes_;
  uint32_t streams_;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_BUFFER_LAYOUT_H_
