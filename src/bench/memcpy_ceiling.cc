#include "bench/memcpy_ceiling.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace xfer::bench {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<uint8_t, FreeDeleter>;

Buffer AllocatePages(size_t bytes) {
  constexpr size_t kPage = 4096;
  const size_t rounded = (bytes + kPage - 1) / kPage * kPage;
  return Buffer(static_cast<uint8_t*>(std::aligned_alloc(kPage, rounded)));
}

// One pass over the span. The barrier keeps the compiler from dropping or
// merging copies whose destination nobody reads.
void CopyPass(uint8_t* destination, const uint8_t* source, size_t block, size_t span) {
  for (size_t offset = 0; offset < span; offset += block) {
    std::memcpy(destination + offset, source + offset, block);
    asm volatile("" : : "r"(destination) : "memory");
  }
}

}  // namespace

Result<double> MeasureMemcpy(size_t block, size_t span, const MemcpyTiming& timing) {
  if (block == 0 || span == 0 || span % block != 0) {
    return InvalidArgument(
        fmt::format("memcpy ceiling: span {} B is not a whole number of {} B blocks", span, block));
  }
  Buffer source = AllocatePages(span);
  Buffer destination = AllocatePages(span);
  if (!source || !destination) {
    return ResourceExhausted(fmt::format("memcpy ceiling: cannot allocate 2 x {} B", span));
  }
  std::memset(source.get(), 0x5a, span);
  std::memset(destination.get(), 0, span);
  CopyPass(destination.get(), source.get(), block, span);

  using Clock = std::chrono::steady_clock;
  double best = 0;
  for (int trial = 0; trial < std::max(1, timing.trials); ++trial) {
    uint64_t passes = 0;
    const Clock::time_point start = Clock::now();
    Clock::time_point now = start;
    // Check the clock every few passes only: for small blocks a clock read
    // costs more than the copy.
    const uint64_t batch = std::max<uint64_t>(1, (64u << 10) / span);
    do {
      for (uint64_t i = 0; i < batch; ++i) CopyPass(destination.get(), source.get(), block, span);
      passes += batch;
      now = Clock::now();
    } while (now - start < timing.trial_time);
    const double seconds = std::chrono::duration<double>(now - start).count();
    best = std::max(best, static_cast<double>(passes) * static_cast<double>(span) / seconds);
  }
  return best;
}

}  // namespace xfer::bench
