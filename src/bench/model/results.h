// What one measured message size yields: plain value structs produced by
// src/bench/model/statistics.h and consumed by src/report/. Rates are stored in
// raw SI units (bytes/s, messages/s); conversion to MiB/s or Gb/s happens only
// when a report is printed.
#ifndef XFER_BENCH_MODEL_RESULTS_H_
#define XFER_BENCH_MODEL_RESULTS_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace xfer::bench {

// One row of a bandwidth table (perftest's struct bw_report_data).
struct BwResult {
  uint64_t size = 0;            // bytes per message
  uint64_t iterations = 0;      // N: messages counted (iters x qps, or the
                                // completions inside the duration-mode window)
  double peak_bytes_per_s = 0;  // best window of §2.3; 0 when peak is off
  double avg_bytes_per_s = 0;   // size * N / T
  double msg_rate_mpps = 0;     // N / T, in 10^6 messages per second
};

// A bucket of a latency distribution: `count` samples in [from_ns, to_ns).
struct LatBucket {
  uint64_t from_ns = 0;
  uint64_t to_ns = 0;
  uint64_t count = 0;
};

// The shape of one size's kept latency samples, beyond perftest's row
// (latency_distribution.h): what --json records.
struct LatDistribution {
  uint64_t samples = 0;  // kept
  uint64_t dropped = 0;  // the largest, left out as perftest leaves them out
  double min_us = 0;     // the smallest and the largest kept
  double max_us = 0;
  // (percentile, us), kLatencyLadder's, nearest rank over the kept samples.
  std::vector<std::pair<double, double>> percentiles;
  std::vector<LatBucket> buckets;  // log-linear, the non-empty ones, ascending
};

// One row of an iteration-mode latency table (perftest's print_report_lat).
// Every time is one-way (RTT / 2) for WRITE and SEND, a full round trip for
// READ, in microseconds.
struct LatResult {
  uint64_t size = 0;
  uint64_t iterations = 0;  // the number of timestamps taken (perftest's iters)
  double t_min_us = 0;
  double t_max_us = 0;      // the 2nd-largest sample, as perftest prints it
  double t_typical_us = 0;  // the median
  double t_avg_us = 0;
  // The population standard deviation, in floating point. (perftest
  // truncates each deviation to an integer, so it prints 0 for sub-us
  // jitter: a bug not copied.)
  double t_stdev_us = 0;
  double p99_us = 0;
  double p999_us = 0;
  // The side that took the samples: their distribution, and, for -U and -H,
  // every sample in the order taken and the kept ones ascending (us). Not
  // sent to the peer.
  LatDistribution distribution;
  std::vector<double> unsorted_us;
  std::vector<double> sorted_us;
};

// One row of a duration-mode latency table (print_report_lat_duration):
// perftest keeps no per-sample array in this mode, only the window length.
struct LatDurationResult {
  uint64_t size = 0;
  uint64_t iterations = 0;  // exchanges completed inside the sample window
  double t_avg_us = 0;      // window / rtt_factor / iterations
  double tps = 0;           // exchanges (transactions) per second
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_MODEL_RESULTS_H_
