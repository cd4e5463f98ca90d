// perftest's measurement arithmetic (../shared/reference/perftest.md §2.2-2.4)
// as pure functions: timestamps in, BwResult / LatResult out, plus the
// default-coupling rules of perftest's force_dependecies() that decide
// cq_mod, tx_depth, rx_depth, peak and the duration-mode window.
//
// Clock: every timestamp is nanoseconds from xfer::NowNs()
// (CLOCK_MONOTONIC_RAW), so perftest's Hz = cpu_mhz * 1e6 becomes exactly
// 1e9 and its "cycles" become nanoseconds. Everything here is stateless and
// thread-safe; nothing does I/O.
#ifndef XFER_BENCH_MODEL_STATISTICS_H_
#define XFER_BENCH_MODEL_STATISTICS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bench/model/bench_params.h"
#include "bench/model/duration_timeline.h"
#include "bench/model/results.h"
#include "xfer/status.h"

namespace xfer::bench {

// ---------------------------------------------------------------- bandwidth

// The timestamps of one bandwidth measurement, taken exactly as perftest's
// run_iter_bw stamps tposted[] / tcompleted[] (§2.2). The spans are borrowed
// for the duration of the call only.
struct BwSamples {
  uint64_t size = 0;        // bytes per message (perftest's tsize)
  uint64_t iterations = 0;  // N: iters x qps, or counted completions
  uint32_t cq_mod = 1;      // effective -Q: one completion per cq_mod WRs
  uint32_t post_list = 1;   // effective -l: WRs per post call
  bool peak = false;        // per-message stamps were taken (peak mode)

  // Peak mode: at least N entries, indexed by WR number. posted_ns[i] is
  // read at i = 0, post_list, 2*post_list, ... (one stamp per post call);
  // completed_ns[j] is read at j = k*cq_mod - 1 (stamped when the completion
  // count reached k*cq_mod) and at j = N-1 (the always-signaled last WR).
  // Other entries are never read.
  // No-peak mode: posted_ns[0] = start of the timed section,
  // completed_ns[0] = its end; at least one entry each.
  std::span<const uint64_t> posted_ns;
  std::span<const uint64_t> completed_ns;
};

// BW average, message rate and (in peak mode) BW peak per §2.3, with Hz=1e9:
//   T        = completed[peak ? N-1 : 0] - posted[0]
//   average  = size * N / T,   msg rate = N / T
//   peak     = size / opt_delta, where opt_delta is the smallest integer
//              per-message time (completed[j] - posted[i]) / (j - i + 1) over
//              i = 0, post_list, ...; j = ROUND_UP(i+1, cq_mod)-1 step cq_mod,
//              plus j = N-1 when N % cq_mod != 0.
// Differences from perftest, both only where perftest would print garbage:
// perftest seeds opt_delta with tcompleted[0]-tposted[0], an unstamped (zero)
// slot whenever cq_mod > 1, which wraps to a huge value; we seed with "no
// candidate yet", which yields the same minimum. A per-message time that
// rounds down to 0 ns is counted as 1 ns (the clock's resolution) instead of
// dividing by zero.
// The peak search costs O((N/post_list) * (N/cq_mod)), like perftest's; the
// rules below turn peak off above 20000 iterations for that reason.
// Errors: InvalidArgument when N, cq_mod or post_list is 0, a span is shorter
// than required, T is not positive, or a completion stamp read by the search
// precedes the post stamp it is paired with (the runner stamped wrongly).
Result<BwResult> ComputeBandwidth(const BwSamples& samples);

// Duration-mode bandwidth (-D): `iterations` messages counted inside the
// sample window of a DurationTimeline, over its scheduled length
// `window_ns` (D - 2*margin); ComputeBandwidth's no-peak formulas with
// T = window_ns. Errors: InvalidArgument when iterations or window_ns is 0.
Result<BwResult> ComputeBandwidthDuration(uint64_t size, uint64_t iterations, uint64_t window_ns);

// ------------------------------------------------------------------ latency

// perftest's LAT_MEASURE_TAIL: the largest samples left out of the stats.
inline constexpr size_t kLatencyTail = 2;
// The fewest timestamps for which every statistic is defined: 3 deltas, 2
// dropped, 1 kept. (perftest rejects -n < 5 at the command line.)
inline constexpr size_t kMinLatencyStamps = 4;

// perftest's rtt_factor: 1 for READ and ATOMIC (each sample is one full
// round trip it reports as is), 2 for WRITE and SEND (ping-pong; reports
// RTT / 2).
int RttFactor(Verb verb);

// Latency statistics of print_report_lat (§2.4). posted_ns holds one stamp
// per iteration (perftest's tposted[0..iters-1]); the M = iters-1 deltas
// between neighbours are sorted and the 2 largest dropped (M' = M-2):
//   t_min = d[0], t_max = d[M'] (2nd largest), t_typical = median of
//   d[0..M') with perftest's odd/even rule in integer ns, t_avg = mean of
//   d[0..M'), 99% = d[ceil(0.99*M')], 99.9% = d[ceil(0.999*M')],
// each divided by 1000*rtt_factor to give microseconds. iterations = iters.
// t_stdev_us is the population standard deviation of d[0..M') in floating
// point (perftest truncates each deviation to an int before squaring it, so
// its stdev reads 0.00 for sub-microsecond jitter: a bug, not copied).
// `distribution` describes d[0..M') (latency_distribution.h); with
// `lists`, unsorted_us holds all M samples in the order taken (-U) and
// sorted_us the kept M' ascending (-H).
// Errors: InvalidArgument when fewer than kMinLatencyStamps stamps are given,
// rtt_factor is not 1 or 2, or a stamp is earlier than the one before it.
// Which sample lists ComputeLatency copies out (perftest's -U and -H), and
// in what unit the row and the lists are (-C: cycles of the counter the
// stamps were taken with, `ticks_per_ns` of them per nanosecond; else us).
// The distribution stays in us and ns whatever the unit.
struct LatencyLists {
  bool unsorted = false;
  bool sorted = false;
  double cycles_per_ns = 0;  // 0: microseconds
};
Result<LatResult> ComputeLatency(uint64_t size,
                                 std::span<const uint64_t> posted_ns,
                                 int rtt_factor, LatencyLists lists = {});

// Duration-mode latency (print_report_lat_duration): only the sample window
// length (a DurationTimeline's scheduled sample_ns) and the number of
// exchanges completed inside it are known.
//   t_avg = window / 1000 / rtt_factor / iterations   [us]
//   tps   = iterations / window[s]
// Errors: InvalidArgument when iterations or window_ns is 0, or rtt_factor
// is not 1 or 2.
Result<LatDurationResult> ComputeLatencyDuration(uint64_t size,
                                                 uint64_t iterations,
                                                 uint64_t window_ns,
                                                 int rtt_factor);

// -------------------------------------------------------------------- rules

// perftest's peak limit: above this many iterations per QP the timestamp
// arrays and the O(N^2) search get expensive, so peak is turned off.
inline constexpr uint64_t kMaxPeakIterations = 20000;
// Messages larger than this get cq_mod 1 unless -Q was given or -a is used.
inline constexpr uint64_t kCqModSizeLimit = 8192;

// True when BW peak will not be measured for this run (§2.3): -N was given;
// duration mode; iteration mode with more than 20000 iterations per QP; or
// the server side of a SEND BW test (it only sees receive completions).
// Latency tests never measure a peak, so they return true as well.
bool PeakDisabled(const BenchParams& params);

// margin = params.margin_s when positive (-f), else floor(D / 4) (perftest's
// integer D/4; its help text's "default 2 s" is wrong). 0 means "not given",
// so an explicit -f 0 cannot be expressed.
// Errors: InvalidArgument when params is not in duration mode
// (duration_s <= 0) or D <= 2 * margin ("please check that DURATION >
// 2*MARGIN").
Result<DurationWindow> ResolveDurationWindow(const BenchParams& params);

// The run parameters after perftest's default-coupling rules.
struct EffectiveSettings {
  uint32_t tx_depth = 0;  // -t, capped to iterations in iteration mode
  uint32_t cq_mod = 0;    // -Q after the size, tx_depth and post-list rules
  uint32_t rx_depth = 0;  // -r; SEND: capped to iterations, rounded up to
                          // even (not with -a)
  bool peak_disabled = false;  // PeakDisabled(params)
  // Messages perftest prints while applying the rules, in its order, one
  // line each without a newline (e.g. " WARNING: BW peak won't be measured
  // in this run."). perftest precedes some of them with a dashed line; the
  // caller decides how to print them.
  std::vector<std::string> notices;
};

// Applies, in perftest's order: tx_depth <= iterations (iteration mode);
// cq_mod = 1 when size > 8192, not -a and -Q not given (a warning when -Q was
// given with cq_mod > 1); cq_mod <= tx_depth; with post_list > 1, cq_mod =
// post_list unless -Q was given, else post_list % cq_mod must be 0; the
// SEND rx_depth cap and round-up; and the peak rules with perftest's
// warning. cq_mod_given: whether the user passed -Q (BenchParams cannot tell
// an explicit -Q 100 from the default).
// Errors: InvalidArgument (message as perftest's) when tx_depth, cq_mod or
// post_list is 0, or iterations is 0 in iteration mode; iterations %
// post_list != 0 in iteration mode;
// post_list % cq_mod != 0 with -Q; post_list > 1 in a latency test;
// post_list > tx_depth (xfer's addition: the posting loop could never post);
// -D together with -a; or an invalid duration window.
Result<EffectiveSettings> ResolveSettings(const BenchParams& params,
                                          bool cq_mod_given);

}  // namespace xfer::bench

#endif  // XFER_BENCH_MODEL_STATISTICS_H_
