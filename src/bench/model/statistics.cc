#include "bench/model/statistics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "bench/model/latency_distribution.h"

namespace xfer::bench {
namespace {

// perftest's Hz (ticks per second) for a nanosecond clock.
constexpr uint64_t kTicksPerSecond = 1'000'000'000;
constexpr double kNsPerUs = 1e3;

constexpr char kPeakWarning[] =
    " WARNING: BW peak won't be measured in this run.";

Status ValidateBwSamples(const BwSamples& s) {
  if (s.iterations == 0) return InvalidArgument("bandwidth: 0 iterations");
  if (s.cq_mod == 0 || s.post_list == 0) {
    return InvalidArgument("bandwidth: cq_mod and post_list must be >= 1");
  }
  const uint64_t need = s.peak ? s.iterations : 1;
  if (s.posted_ns.size() < need || s.completed_ns.size() < need) {
    return InvalidArgument(fmt::format(
        "bandwidth: {} posted and {} completed stamps, need {} each",
        s.posted_ns.size(), s.completed_ns.size(), need));
  }
  return Status::Ok();
}

uint64_t RoundUp(uint64_t value, uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

Status StampOrderError(const BwSamples& s, uint64_t i, uint64_t j) {
  return InvalidArgument(fmt::format(
      "bandwidth: completion stamp {} ({} ns) precedes post stamp {} ({} ns)",
      j, s.completed_ns[j], i, s.posted_ns[i]));
}

// The smallest integer nanoseconds-per-message over perftest's candidate
// windows [i, j] (§2.3).
Result<uint64_t> BestNsPerMessage(const BwSamples& s) {
  const uint64_t n = s.iterations;
  const uint64_t cq_mod = s.cq_mod;
  uint64_t best = std::numeric_limits<uint64_t>::max();
  // Folds window [i, j] into best; false when its stamps are out of order.
  auto consider = [&s, &best](uint64_t i, uint64_t j) {
    const uint64_t posted = s.posted_ns[i];
    const uint64_t completed = s.completed_ns[j];
    if (completed < posted) return false;
    const uint64_t span = completed - posted;
    const uint64_t count = j - i + 1;
    // floor(span / count) < best  <=>  span < best * count; the multiply
    // spares the hot loop a division for every window that cannot win.
    uint64_t bound = 0;
    if (__builtin_mul_overflow(best, count, &bound) || span < bound) {
      best = std::min(best, span / count);
    }
    return true;
  };
  for (uint64_t i = 0; i < n; i += s.post_list) {
    for (uint64_t j = RoundUp(i + 1, cq_mod) - 1; j < n; j += cq_mod) {
      if (!consider(i, j)) return StampOrderError(s, i, j);
    }
    // The last WR is always signaled, even inside a partial batch.
    if (n % cq_mod != 0 && !consider(i, n - 1)) {
      return StampOrderError(s, i, n - 1);
    }
  }
  return best;
}

// perftest: (double)(tsize * Hz) / (double)(opt_delta * format_factor); the
// format factor is applied when the report is printed.
double PeakBytesPerSecond(uint64_t size, uint64_t ns_per_message) {
  const double delta =
      static_cast<double>(std::max<uint64_t>(ns_per_message, 1));
  uint64_t numerator = 0;
  if (__builtin_mul_overflow(size, kTicksPerSecond, &numerator)) {
    return static_cast<double>(size) * static_cast<double>(kTicksPerSecond) /
           delta;
  }
  return static_cast<double>(numerator) / delta;
}

Status ValidateRttFactor(int rtt_factor) {
  if (rtt_factor != 1 && rtt_factor != 2) {
    return InvalidArgument(
        fmt::format("latency: rtt_factor must be 1 or 2, got {}", rtt_factor));
  }
  return Status::Ok();
}

// perftest's get_median over the first n sorted samples, in integer ns.
uint64_t Median(const std::vector<uint64_t>& sorted, size_t n) {
  if ((n - 1) % 2 != 0) {
    const uint64_t a = sorted[n / 2];
    const uint64_t b = sorted[n / 2 - 1];
    return a / 2 + b / 2 + (a % 2 + b % 2) / 2;  // (a + b) / 2, no overflow
  }
  return sorted[n / 2];
}

// The population standard deviation of the first n samples, in floating
// point (perftest truncates each deviation to an int: not copied).
double Stdev(const std::vector<uint64_t>& sorted, size_t n, double quotient, double average) {
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    const double deviation = average - static_cast<double>(sorted[i]) / quotient;
    sum += deviation * deviation;
  }
  return std::sqrt(sum / static_cast<double>(n));
}

// perftest: delta[ceil(M' * fraction)], never past index M'.
size_t PercentileIndex(size_t kept, double fraction) {
  const auto index =
      static_cast<size_t>(std::ceil(static_cast<double>(kept) * fraction));
  return std::min(index, kept);
}

Result<std::vector<uint64_t>> SortedDeltas(std::span<const uint64_t> stamps) {
  std::vector<uint64_t> deltas(stamps.size() - 1);
  for (size_t i = 0; i + 1 < stamps.size(); ++i) {
    if (stamps[i + 1] < stamps[i]) {
      return InvalidArgument(fmt::format(
          "latency: stamp {} ({} ns) is earlier than stamp {} ({} ns)", i + 1,
          stamps[i + 1], i, stamps[i]));
    }
    deltas[i] = stamps[i + 1] - stamps[i];
  }
  std::sort(deltas.begin(), deltas.end());
  return deltas;
}

bool IsDurationMode(const BenchParams& p) { return p.duration_s > 0; }

Status ValidateRuleInputs(const BenchParams& p) {
  if (p.tx_depth == 0 || p.cq_mod == 0 || p.post_list == 0) {
    return InvalidArgument("-t/--tx-depth, -Q/--cq-mod and -l/--post_list must be >= 1");
  }
  if (!IsDurationMode(p) && p.iterations == 0) {
    return InvalidArgument("-n/--iters must be >= 1");
  }
  if (IsDurationMode(p) && p.all_sizes) {
    return InvalidArgument(
        "-a/--all cannot be combined with -D/--duration (duration mode does not "
        "support running on all sizes)");
  }
  if (p.post_list > 1 && p.kind != Kind::kBandwidth) {
    return InvalidArgument("-l/--post_list is supported in BW tests only");
  }
  if (p.post_list > p.tx_depth) {
    return InvalidArgument(fmt::format("-l/--post_list {} exceeds -t/--tx-depth {}",
                                       p.post_list, p.tx_depth));
  }
  return Status::Ok();
}

uint32_t CapToIterations(uint32_t value, const BenchParams& p) {
  if (IsDurationMode(p) || value <= p.iterations) return value;
  return static_cast<uint32_t>(p.iterations);
}

// The -Q rules of force_dependecies, in its order.
Result<uint32_t> ResolveCqMod(const BenchParams& p, bool cq_mod_given,
                              uint32_t tx_depth,
                              std::vector<std::string>* notices) {
  uint32_t cq_mod = p.cq_mod;
  if (p.size > kCqModSizeLimit && !p.all_sizes) {
    if (!cq_mod_given) {
      cq_mod = 1;
    } else if (cq_mod > 1) {
      notices->push_back(
          "Warning: Large message requested and CQ moderation enabled");
      notices->push_back("Warning: It can lead to inaccurate results");
    }
  }
  cq_mod = std::min(cq_mod, tx_depth);
  if (p.post_list > 1) {
    if (!IsDurationMode(p) && p.iterations % p.post_list != 0) {
      return InvalidArgument(fmt::format("-n/--iters {} must be a multiple of -l/--post_list {}",
                                         p.iterations, p.post_list));
    }
    if (!cq_mod_given) {
      cq_mod = p.post_list;
      notices->push_back(
          "Post List requested - CQ moderation will be the size of the post "
          "list");
    } else if (p.post_list % cq_mod != 0) {
      return InvalidArgument(fmt::format("-l/--post_list {} must be a multiple of -Q/--cq-mod {}",
                                         p.post_list, cq_mod));
    }
  }
  return cq_mod;
}

uint32_t ResolveRxDepth(const BenchParams& p) {
  if (p.verb != Verb::kSend) return p.rx_depth;
  uint32_t rx_depth = CapToIterations(p.rx_depth, p);
  // perftest's "WA for a bug when rx_depth is odd in SEND" (RUN_REGULAR only).
  if (rx_depth % 2 == 1 && !p.all_sizes) ++rx_depth;
  return rx_depth;
}

}  // namespace

Result<BwResult> ComputeBandwidth(const BwSamples& samples) {
  XFER_RETURN_IF_ERROR(ValidateBwSamples(samples));
  const uint64_t n = samples.iterations;
  const uint64_t start = samples.posted_ns[0];
  const uint64_t end = samples.completed_ns[samples.peak ? n - 1 : 0];
  if (end <= start) {
    return InvalidArgument(
        fmt::format("bandwidth: end stamp {} ns is not after start stamp {} ns",
                    end, start));
  }
  const auto elapsed = static_cast<double>(end - start);
  const auto hz = static_cast<double>(kTicksPerSecond);
  BwResult result;
  result.size = samples.size;
  result.iterations = n;
  result.avg_bytes_per_s =
      static_cast<double>(samples.size) * static_cast<double>(n) * hz / elapsed;
  result.msg_rate_mpps = static_cast<double>(n) * hz / (elapsed * 1e6);
  if (samples.peak) {
    Result<uint64_t> best = BestNsPerMessage(samples);
    if (!best.ok()) return best.status();
    result.peak_bytes_per_s = PeakBytesPerSecond(samples.size, *best);
  }
  return result;
}

Result<BwResult> ComputeBandwidthDuration(uint64_t size, uint64_t iterations, uint64_t window_ns) {
  if (iterations == 0 || window_ns == 0) {
    return InvalidArgument(
        fmt::format("bandwidth: {} messages in a {} ns window", iterations, window_ns));
  }
  // The window's edges as perftest's alarm stamps them: tposted[0] at the
  // start of the sample, tcompleted[0] at its end.
  const uint64_t window_start[1] = {0};
  const uint64_t window_end[1] = {window_ns};
  BwSamples samples;
  samples.size = size;
  samples.iterations = iterations;
  samples.posted_ns = window_start;
  samples.completed_ns = window_end;
  return ComputeBandwidth(samples);
}

// READ and ATOMIC: each sample is a full round trip (run_iter_lat).
int RttFactor(Verb verb) {
  return verb == Verb::kRead || verb == Verb::kAtomic ? 1 : 2;
}

Result<LatResult> ComputeLatency(uint64_t size,
                                 std::span<const uint64_t> posted_ns,
                                 int rtt_factor, LatencyLists lists) {
  if (posted_ns.size() < kMinLatencyStamps) {
    return InvalidArgument(
        fmt::format("latency: {} timestamps, need at least {}",
                    posted_ns.size(), kMinLatencyStamps));
  }
  XFER_RETURN_IF_ERROR(ValidateRttFactor(rtt_factor));
  Result<std::vector<uint64_t>> sorted = SortedDeltas(posted_ns);
  if (!sorted.ok()) return sorted.status();
  const std::vector<uint64_t>& d = *sorted;
  const size_t kept = d.size() - kLatencyTail;  // M'
  const double quotient =
      (lists.cycles_per_ns > 0 ? 1 / lists.cycles_per_ns : kNsPerUs) * rtt_factor;
  auto us = [quotient](uint64_t ns) {
    return static_cast<double>(ns) / quotient;
  };

  double sum = 0;
  for (size_t i = 0; i < kept; ++i) sum += us(d[i]);
  LatResult result;
  result.size = size;
  result.iterations = posted_ns.size();
  result.t_min_us = us(d[0]);
  result.t_max_us = us(d[kept]);
  result.t_typical_us = us(Median(d, kept));
  result.t_avg_us = sum / static_cast<double>(kept);
  result.t_stdev_us = Stdev(d, kept, quotient, result.t_avg_us);
  result.p99_us = us(d[PercentileIndex(kept, 0.99)]);
  result.p999_us = us(d[PercentileIndex(kept, 0.999)]);
  result.distribution = DescribeLatency(std::span(d).first(kept), rtt_factor, kLatencyTail);
  if (lists.unsorted) {
    result.unsorted_us.reserve(posted_ns.size() - 1);
    for (size_t i = 0; i + 1 < posted_ns.size(); ++i) {
      result.unsorted_us.push_back(us(posted_ns[i + 1] - posted_ns[i]));
    }
  }
  if (lists.sorted) {
    result.sorted_us.reserve(kept);
    for (size_t i = 0; i < kept; ++i) result.sorted_us.push_back(us(d[i]));
  }
  return result;
}

Result<LatDurationResult> ComputeLatencyDuration(uint64_t size,
                                                 uint64_t iterations,
                                                 uint64_t window_ns,
                                                 int rtt_factor) {
  if (iterations == 0 || window_ns == 0) {
    return InvalidArgument(fmt::format(
        "latency: {} exchanges in a {} ns window", iterations, window_ns));
  }
  XFER_RETURN_IF_ERROR(ValidateRttFactor(rtt_factor));
  const auto window = static_cast<double>(window_ns);
  const auto count = static_cast<double>(iterations);
  LatDurationResult result;
  result.size = size;
  result.iterations = iterations;
  result.t_avg_us = window / kNsPerUs / rtt_factor / count;
  result.tps = count / (window / static_cast<double>(kTicksPerSecond));
  return result;
}

bool PeakDisabled(const BenchParams& params) {
  if (params.kind != Kind::kBandwidth) return true;
  if (params.no_peak || IsDurationMode(params)) return true;
  if (params.iterations > kMaxPeakIterations) return true;
  return params.verb == Verb::kSend && params.role == Role::kServer;
}

Result<DurationWindow> ResolveDurationWindow(const BenchParams& params) {
  if (!IsDurationMode(params)) {
    return InvalidArgument("duration window requested outside duration mode");
  }
  DurationWindow window;
  window.margin_s =
      params.margin_s > 0 ? params.margin_s : std::floor(params.duration_s / 4);
  if (!(params.duration_s > 2 * window.margin_s)) {
    return InvalidArgument(fmt::format(
        "-D/--duration {} must be greater than 2 * -f/--margin {}",
        params.duration_s, window.margin_s));
  }
  window.sample_s = params.duration_s - 2 * window.margin_s;
  return window;
}

Result<EffectiveSettings> ResolveSettings(const BenchParams& params,
                                          bool cq_mod_given) {
  XFER_RETURN_IF_ERROR(ValidateRuleInputs(params));
  if (IsDurationMode(params)) {
    Result<DurationWindow> window = ResolveDurationWindow(params);
    if (!window.ok()) return window.status();
  }
  EffectiveSettings settings;
  settings.tx_depth = CapToIterations(params.tx_depth, params);
  Result<uint32_t> cq_mod =
      ResolveCqMod(params, cq_mod_given, settings.tx_depth, &settings.notices);
  if (!cq_mod.ok()) return cq_mod.status();
  settings.cq_mod = *cq_mod;
  settings.rx_depth = ResolveRxDepth(params);
  settings.peak_disabled = PeakDisabled(params);
  // perftest warns only when a rule, not -N, turns the peak off.
  if (params.kind == Kind::kBandwidth && settings.peak_disabled &&
      !params.no_peak) {
    settings.notices.push_back(kPeakWarning);
  }
  return settings;
}

}  // namespace xfer::bench
