// What one measured message size yields: plain value structs produced by
// src/bench/model/statistics.h and consumed by src/report/. Rates are stored in
// raw SI units (bytes/s, messages/s); conversion to MiB/s or Gb/s happens only
// when a report is printed.
#ifndef XFER_BENCH_MODEL_RESULTS_H_
#define XFER_BENCH_MODEL_RESULTS_H_

#include <cstdint>

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
  double t_stdev_us = 0;        // perftest's, from truncated deviations (the table's)
  double t_stdev_exact_us = 0;  // the population standard deviation (--json's)
  double p99_us = 0;
  double p999_us = 0;
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
