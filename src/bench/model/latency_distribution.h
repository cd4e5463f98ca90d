// A latency distribution as the field reads one, beyond perftest's row: a
// percentile ladder (sockperf's 25 ... 99.999) with the smallest and the
// largest sample, and log-linear buckets (HDR histogram style: 16 per power
// of two, so every bucket is at most 6.25% of its values wide) from which a
// reader can redraw the whole distribution. Computed once the samples are
// taken, never in the timed loop.
#ifndef XFER_BENCH_MODEL_LATENCY_DISTRIBUTION_H_
#define XFER_BENCH_MODEL_LATENCY_DISTRIBUTION_H_

#include <array>
#include <cstdint>
#include <span>

#include "bench/model/results.h"

namespace xfer::bench {

inline constexpr std::array<double, 8> kLatencyLadder = {25,   50,    75,     90,
                                                         99, 99.9, 99.99, 99.999};

// The bucket holding `ns` (count 0): one per nanosecond below 16 ns, then 16
// per power of two.
LatBucket BucketOf(uint64_t ns);

// The nearest-rank percentile `p` (0 < p <= 100) of `sorted`, ascending and
// not empty: sorted[ceil(p / 100 * n) - 1].
uint64_t NearestRank(std::span<const uint64_t> sorted, double p);

// `sorted_ns`: the kept samples, ascending, each a round trip; a reported
// value is one of them divided by `rtt_factor` (2 for WRITE and SEND: one
// way; 1 for READ), exact in min, max and the ladder, to the nanosecond
// below in the buckets. `dropped`: how many of the largest were left out.
// REQUIRES: sorted_ns not empty, rtt_factor 1 or 2.
LatDistribution DescribeLatency(std::span<const uint64_t> sorted_ns, int rtt_factor,
                                uint64_t dropped);

}  // namespace xfer::bench

#endif  // XFER_BENCH_MODEL_LATENCY_DISTRIBUTION_H_
