#include "bench/model/latency_distribution.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace xfer::bench {
namespace {

// Sub-buckets per power of two: 2^4.
constexpr unsigned kSubBits = 4;

}  // namespace

LatBucket BucketOf(uint64_t ns) {
  constexpr uint64_t kLinear = uint64_t{1} << kSubBits;
  if (ns < kLinear) return {ns, ns + 1, 0};
  const auto exponent = static_cast<unsigned>(std::bit_width(ns)) - 1;  // 2^exponent <= ns
  const uint64_t width = uint64_t{1} << (exponent - kSubBits);
  const uint64_t from = ns / width * width;
  // The last bucket below 2^64 ends at the largest value rather than wrap.
  const uint64_t to = from > UINT64_MAX - width ? UINT64_MAX : from + width;
  return {from, to, 0};
}

uint64_t NearestRank(std::span<const uint64_t> sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  // 99.9 / 100 * 1000 is 999.0000000000001 in binary: the rounding error
  // must not move the rank up by one.
  const double exact = p / 100 * n;
  const auto rank = static_cast<size_t>(std::ceil(exact - exact * 1e-12));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

LatDistribution DescribeLatency(std::span<const uint64_t> sorted_ns, int rtt_factor,
                                uint64_t dropped) {
  const double quotient = 1e3 * rtt_factor;  // round-trip ns to reported us
  const auto rtt = static_cast<uint64_t>(rtt_factor);
  LatDistribution out;
  out.samples = sorted_ns.size();
  out.dropped = dropped;
  out.min_us = static_cast<double>(sorted_ns.front()) / quotient;
  out.max_us = static_cast<double>(sorted_ns.back()) / quotient;
  for (const double p : kLatencyLadder) {
    out.percentiles.emplace_back(p, static_cast<double>(NearestRank(sorted_ns, p)) / quotient);
  }
  // Ascending samples fill ascending buckets: one pass.
  for (const uint64_t round_trip : sorted_ns) {
    const uint64_t ns = round_trip / rtt;
    if (out.buckets.empty() || ns >= out.buckets.back().to_ns) out.buckets.push_back(BucketOf(ns));
    ++out.buckets.back().count;
  }
  return out;
}

}  // namespace xfer::bench
