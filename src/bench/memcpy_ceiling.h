// Single-core memcpy on this host: the ceiling of a transfer whose bytes a
// CPU core copies (DataMover::kCpuCopy), measured as the benchmark moves
// them.
#ifndef XFER_BENCH_MEMCPY_CEILING_H_
#define XFER_BENCH_MEMCPY_CEILING_H_

#include <chrono>
#include <cstddef>

#include "xfer/status.h"

namespace xfer::bench {

struct MemcpyTiming {
  int trials = 5;                                      // the best one counts
  std::chrono::microseconds trial_time{8000};          // at least, per trial
};

// Bytes/s of memcpy on the calling thread, copying `span` bytes in
// `block`-byte blocks from one buffer into another (block k to offset
// k*block, as a matrix sample does); span == block copies one fixed block
// again and again, as a perftest-style loop does. The best of
// timing.trials timed trials, after one untimed pass that faults the pages
// in. Takes about trials × trial_time, or one pass per trial when a pass is
// longer. Errors: kInvalidArgument (block 0, or span not a multiple of
// block); kResourceExhausted (the two buffers could not be allocated).
Result<double> MeasureMemcpy(size_t block, size_t span, const MemcpyTiming& timing = {});

}  // namespace xfer::bench

#endif  // XFER_BENCH_MEMCPY_CEILING_H_
