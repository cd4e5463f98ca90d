// Per-message timestamps, as perftest takes them: the CPU's cycle counter
// (x86 TSC), read in a few nanoseconds where clock_gettime costs ~30 ns on a
// VM, which is several percent of a 64 KiB shm copy and most of a
// sub-microsecond ping-pong. Unlike perftest, ticks are not scaled by a
// /proc/cpuinfo MHz guess: a CycleCalibration pairs the counter with
// CLOCK_MONOTONIC_RAW at both ends of the measured run and converts by that
// slope, so the result is in true nanoseconds.
#ifndef XFER_BENCH_MODEL_CYCLE_CLOCK_H_
#define XFER_BENCH_MODEL_CYCLE_CLOCK_H_

#include <cstdint>
#include <span>

#include "common/clock.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace xfer::bench {

// Monotonic ticks. REQUIRES (x86): an invariant TSC (constant_tsc and
// nonstop_tsc, standard on x86 CPUs and hypervisors of the last decade).
inline uint64_t ReadCycles() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return NowNs();  // no cheap portable counter: nanoseconds are ticks
#endif
}

// Maps ticks read during a run onto nanoseconds. Begin() before the first
// stamp, End() after the last; then ToNs() any tick in between.
class CycleCalibration {
 public:
  void Begin() {
    start_ns_ = NowNs();
    start_ticks_ = ReadCycles();
  }
  void End() {
    end_ticks_ = ReadCycles();
    end_ns_ = NowNs();
  }

  // Counter ticks per nanosecond over the calibrated run (perftest's -C
  // reports in them); 1 before End().
  double TicksPerNs() const {
    if (end_ticks_ <= start_ticks_ || end_ns_ <= start_ns_) return 1;
    return static_cast<double>(end_ticks_ - start_ticks_) /
           static_cast<double>(end_ns_ - start_ns_);
  }

  uint64_t ToNs(uint64_t ticks) const {
    if (end_ticks_ <= start_ticks_) return start_ns_;
    // long double keeps 64 bits of mantissa: exact for any run shorter
    // than centuries, and no overflow in ticks * ns.
    const long double ns_per_tick = static_cast<long double>(end_ns_ - start_ns_) /
                                    static_cast<long double>(end_ticks_ - start_ticks_);
    return start_ns_ +
           static_cast<uint64_t>(static_cast<long double>(ticks - start_ticks_) * ns_per_tick + 0.5L);
  }

  // Converts every stamp in place; 0 marks a slot never stamped and stays 0.
  void ToNs(std::span<uint64_t> stamps) const {
    for (uint64_t& t : stamps) {
      if (t != 0) t = ToNs(t);
    }
  }

 private:
  uint64_t start_ns_ = 0, start_ticks_ = 0, end_ns_ = 0, end_ticks_ = 0;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_MODEL_CYCLE_CLOCK_H_
