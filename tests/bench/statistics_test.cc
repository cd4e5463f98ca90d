// Hand-computed checks of perftest's BW and latency arithmetic
// (perftest.md §2.2-2.4) and of its default-coupling rules (§2.3).
#include "bench/model/statistics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace xfer::bench {
namespace {

constexpr uint64_t kUnstamped = 0;  // what perftest's calloc'd arrays hold

// ------------------------------------------------------------ bandwidth

TEST(ComputeBandwidth, NoPeakAverageAndMessageRate) {
  const std::vector<uint64_t> posted{1'000};
  const std::vector<uint64_t> completed{1'000 + 50'000'000};  // T = 50 ms
  BwSamples s{.size = 65536,
              .iterations = 5000,
              .cq_mod = 100,
              .post_list = 1,
              .peak = false,
              .posted_ns = posted,
              .completed_ns = completed};
  Result<BwResult> r = ComputeBandwidth(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->size, 65536u);
  EXPECT_EQ(r->iterations, 5000u);
  // 65536 B * 5000 / 0.05 s and 5000 / 0.05 s.
  EXPECT_DOUBLE_EQ(r->avg_bytes_per_s, 6'553'600'000.0);
  EXPECT_DOUBLE_EQ(r->msg_rate_mpps, 0.1);
  EXPECT_EQ(r->peak_bytes_per_s, 0.0);
}

TEST(ComputeBandwidth, PeakPicksTheBestWindowWithIntegerDelta) {
  // All (i, j) windows with cq_mod = 1 (ns per message, integer):
  //   i=0: 100, 55, 38 (115/3), 50    i=1: 100, 52, 63
  //   i=2: 95, 90                     i=3: 170
  const std::vector<uint64_t> posted{0, 10, 20, 30};
  const std::vector<uint64_t> completed{100, 110, 115, 200};
  BwSamples s{.size = 1000,
              .iterations = 4,
              .cq_mod = 1,
              .post_list = 1,
              .peak = true,
              .posted_ns = posted,
              .completed_ns = completed};
  Result<BwResult> r = ComputeBandwidth(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_DOUBLE_EQ(r->peak_bytes_per_s, 1000.0 * 1e9 / 38.0);
  // The average spans tposted[0] .. tcompleted[N-1] = 200 ns.
  EXPECT_DOUBLE_EQ(r->avg_bytes_per_s, 1000.0 * 4 * 1e9 / 200.0);
  EXPECT_DOUBLE_EQ(r->msg_rate_mpps, 4 * 1e9 / (200.0 * 1e6));
}

// N = 10, cq_mod = 4: completions are stamped at j = 3 and 7 (count reached
// 4 and 8) and j = 9 (the always-signaled last WR). Unstamped slots hold 0,
// which is before every post stamp, so reading one would be an error.
TEST(ComputeBandwidth, CqModStampsAndExplicitLastWr) {
  std::vector<uint64_t> posted(10);
  for (uint64_t i = 0; i < 10; ++i) posted[i] = 1000 + i * 100;
  std::vector<uint64_t> completed(10, kUnstamped);
  completed[3] = 2000;
  completed[7] = 3000;
  completed[9] = 3100;
  BwSamples s{.size = 4096,
              .iterations = 10,
              .cq_mod = 4,
              .post_list = 1,
              .peak = true,
              .posted_ns = posted,
              .completed_ns = completed};
  Result<BwResult> r = ComputeBandwidth(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Strided windows alone give at best 250 ns/msg ([0,3] and [0,7]); the
  // explicit j = N-1 window [0,9] gives 2100 / 10 = 210.
  EXPECT_DOUBLE_EQ(r->peak_bytes_per_s, 4096.0 * 1e9 / 210.0);
  EXPECT_DOUBLE_EQ(r->avg_bytes_per_s, 4096.0 * 10 * 1e9 / 2100.0);
}

TEST(ComputeBandwidth, NoExplicitLastWrWhenBatchesAreFull) {
  // N = 8, cq_mod = 4: only j = 3 and 7 are stamped. A correct search never
  // reads completed[6]; the poisoned value there would win if it did.
  std::vector<uint64_t> posted{0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<uint64_t> completed(8, kUnstamped);
  completed[3] = 400;
  completed[6] = 7;  // not a stamp: (7 - 0) / 7 = 1 ns/msg if read
  completed[7] = 800;
  BwSamples s{.size = 1,
              .iterations = 8,
              .cq_mod = 4,
              .post_list = 1,
              .peak = true,
              .posted_ns = posted,
              .completed_ns = completed};
  Result<BwResult> r = ComputeBandwidth(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Windows: [0,3] 100, [0,7] 100, [1,3] 133, [1,7] 114, [2,3] 199,
  // [2,7] 133, [3,3] 397, [3,7] 159, [4,7] 199, ... -> 100.
  EXPECT_DOUBLE_EQ(r->peak_bytes_per_s, 1e9 / 100.0);
}

TEST(ComputeBandwidth, PostListReadsOnlyPostCallStamps) {
  // post_list = 4: tposted is stamped at i = 0 and 4 only; the others hold
  // a value after every completion, so reading one would be an error.
  const uint64_t poison = std::numeric_limits<uint64_t>::max();
  std::vector<uint64_t> posted(8, poison);
  posted[0] = 0;
  posted[4] = 500;
  std::vector<uint64_t> completed(8, kUnstamped);
  completed[3] = 400;
  completed[7] = 900;
  BwSamples s{.size = 8,
              .iterations = 8,
              .cq_mod = 4,
              .post_list = 4,
              .peak = true,
              .posted_ns = posted,
              .completed_ns = completed};
  Result<BwResult> r = ComputeBandwidth(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // [0,3] 100, [0,7] 112, [4,7] 100 -> 100.
  EXPECT_DOUBLE_EQ(r->peak_bytes_per_s, 8e9 / 100.0);
}

TEST(ComputeBandwidth, SubNanosecondDeltaCountsAsOneNanosecond) {
  const std::vector<uint64_t> posted{0, 0};
  const std::vector<uint64_t> completed{0, 5};
  BwSamples s{.size = 2,
              .iterations = 2,
              .cq_mod = 1,
              .post_list = 1,
              .peak = true,
              .posted_ns = posted,
              .completed_ns = completed};
  Result<BwResult> r = ComputeBandwidth(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_DOUBLE_EQ(r->peak_bytes_per_s, 2e9);
}

// perftest's search written the obvious way, for random cross-checks.
uint64_t ReferenceOptDelta(const std::vector<uint64_t>& posted,
                           const std::vector<uint64_t>& completed, uint64_t n,
                           uint64_t cq_mod, uint64_t post_list) {
  uint64_t best = std::numeric_limits<uint64_t>::max();
  for (uint64_t i = 0; i < n; i += post_list) {
    for (uint64_t j = (i + 1 + cq_mod - 1) / cq_mod * cq_mod - 1; j < n;
         j += cq_mod) {
      best = std::min(best, (completed[j] - posted[i]) / (j - i + 1));
    }
    if (n % cq_mod != 0) {
      best = std::min(best, (completed[n - 1] - posted[i]) / (n - i));
    }
  }
  return best;
}

TEST(ComputeBandwidth, PeakMatchesReferenceSearchOnRandomRuns) {
  std::mt19937_64 rng(1234);
  for (int run = 0; run < 200; ++run) {
    const uint64_t post_list = 1 + rng() % 4;
    const uint64_t cq_mod = 1 + rng() % 8;
    const uint64_t n = post_list * (1 + rng() % 60);
    std::vector<uint64_t> posted(n), completed(n);
    uint64_t now = rng() % 1000;
    for (uint64_t i = 0; i < n; ++i) {
      now += rng() % 50;
      posted[i] = now;
      completed[i] = now + 100 + rng() % 5000;
    }
    for (uint64_t i = 1; i < n; ++i) {  // completions in order
      completed[i] = std::max(completed[i], completed[i - 1]);
    }
    BwSamples s{.size = 1000,
                .iterations = n,
                .cq_mod = static_cast<uint32_t>(cq_mod),
                .post_list = static_cast<uint32_t>(post_list),
                .peak = true,
                .posted_ns = posted,
                .completed_ns = completed};
    Result<BwResult> r = ComputeBandwidth(s);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const uint64_t best =
        ReferenceOptDelta(posted, completed, n, cq_mod, post_list);
    ASSERT_DOUBLE_EQ(
        r->peak_bytes_per_s,
        1000.0 * 1e9 / static_cast<double>(std::max<uint64_t>(best, 1)))
        << "n=" << n << " cq_mod=" << cq_mod << " post_list=" << post_list;
  }
}

TEST(ComputeBandwidth, RejectsBadInput) {
  const std::vector<uint64_t> one{10};
  const std::vector<uint64_t> later{20};
  BwSamples ok{.size = 1,
               .iterations = 1,
               .cq_mod = 1,
               .post_list = 1,
               .peak = false,
               .posted_ns = one,
               .completed_ns = later};
  ASSERT_TRUE(ComputeBandwidth(ok).ok());

  BwSamples s = ok;
  s.iterations = 0;
  EXPECT_EQ(ComputeBandwidth(s).status().code(), StatusCode::kInvalidArgument);
  s = ok;
  s.cq_mod = 0;
  EXPECT_EQ(ComputeBandwidth(s).status().code(), StatusCode::kInvalidArgument);
  s = ok;
  s.completed_ns = one;  // T = 0
  EXPECT_EQ(ComputeBandwidth(s).status().code(), StatusCode::kInvalidArgument);
  s = ok;
  s.peak = true;
  s.iterations = 2;  // spans hold 1 stamp, peak mode needs N
  EXPECT_EQ(ComputeBandwidth(s).status().code(), StatusCode::kInvalidArgument);
  s = ok;
  s.posted_ns = {};
  EXPECT_EQ(ComputeBandwidth(s).status().code(), StatusCode::kInvalidArgument);

  const std::vector<uint64_t> posted{0, 50};
  const std::vector<uint64_t> completed{10, 40};  // WR 1 completes before post
  BwSamples bad{.size = 1,
                .iterations = 2,
                .cq_mod = 1,
                .post_list = 1,
                .peak = true,
                .posted_ns = posted,
                .completed_ns = completed};
  EXPECT_EQ(ComputeBandwidth(bad).status().code(),
            StatusCode::kInvalidArgument);
}

// --------------------------------------------------------------- latency

// Stamps whose neighbour deltas are exactly `deltas`, in that order.
std::vector<uint64_t> StampsFromDeltas(const std::vector<uint64_t>& deltas) {
  std::vector<uint64_t> stamps{5'000'000};
  for (uint64_t d : deltas) stamps.push_back(stamps.back() + d);
  return stamps;
}

TEST(ComputeLatency, DropsTwoLargestOddMedianAndAFloatingPointStdev) {
  // Sorted: 1000 2000 3000 4000 5000 | 9000 50000 (the 2 dropped); M' = 5.
  const auto stamps =
      StampsFromDeltas({3000, 1000, 9000, 2000, 5000, 50000, 4000});
  Result<LatResult> r = ComputeLatency(64, stamps, /*rtt_factor=*/2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->size, 64u);
  EXPECT_EQ(r->iterations, 8u);  // iters, not M
  // Values are one-way: ns / 1000 / 2.
  EXPECT_DOUBLE_EQ(r->t_min_us, 0.5);
  EXPECT_DOUBLE_EQ(r->t_max_us, 4.5);      // d[M'], the 2nd largest
  EXPECT_DOUBLE_EQ(r->t_typical_us, 1.5);  // odd M': d[M'/2]
  EXPECT_DOUBLE_EQ(r->t_avg_us, 1.5);      // mean of 0.5 .. 2.5
  // Deviations 1.0 0.5 0 -0.5 -1.0: sqrt((1 + 0.25 + 0 + 0.25 + 1) / 5).
  // (perftest truncates each to an int first: sqrt(2/5).)
  EXPECT_DOUBLE_EQ(r->t_stdev_us, std::sqrt(2.5 / 5.0));
  // ceil(0.99 * 5) = ceil(0.999 * 5) = 5: both land on d[5].
  EXPECT_DOUBLE_EQ(r->p99_us, 4.5);
  EXPECT_DOUBLE_EQ(r->p999_us, 4.5);
  // The kept five, one-way, in the distribution; no lists unless asked.
  EXPECT_EQ(r->distribution.samples, 5u);
  EXPECT_EQ(r->distribution.dropped, 2u);
  EXPECT_DOUBLE_EQ(r->distribution.min_us, 0.5);
  EXPECT_DOUBLE_EQ(r->distribution.max_us, 2.5);
  EXPECT_TRUE(r->unsorted_us.empty());
  EXPECT_TRUE(r->sorted_us.empty());
}

// Sub-microsecond jitter has a standard deviation (perftest's reads 0.00).
TEST(ComputeLatency, SubMicrosecondJitterHasAStdev) {
  const auto stamps =
      StampsFromDeltas({1000, 1400, 1800, 1200, 1600, 9000, 9000});
  Result<LatResult> r = ComputeLatency(2, stamps, 1);
  ASSERT_TRUE(r.ok());
  // Deviations 0.4 0.2 0 -0.2 -0.4 us: sqrt(0.4 / 5).
  EXPECT_NEAR(r->t_stdev_us, std::sqrt(0.4 / 5.0), 1e-12);
}

// -C: the row and the lists in counter cycles (2 per ns here); the
// distribution stays in us and ns.
TEST(ComputeLatency, CyclesAreTheCountersUnitsForTheRowAndTheLists) {
  const auto stamps = StampsFromDeltas({3000, 1000, 9000, 2000, 5000, 50000, 4000});
  Result<LatResult> r = ComputeLatency(64, stamps, 2, {.sorted = true, .cycles_per_ns = 2.0});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_DOUBLE_EQ(r->t_min_us, 1000);  // 1000 ns / 2 (one way) * 2 cycles per ns
  EXPECT_DOUBLE_EQ(r->t_typical_us, 3000);
  EXPECT_EQ(r->sorted_us, (std::vector<double>{1000, 2000, 3000, 4000, 5000}));
  EXPECT_DOUBLE_EQ(r->distribution.min_us, 0.5);
}

// -U: every sample in the order taken, the two largest included; -H: the
// kept ones, ascending. Both one-way, in us.
TEST(ComputeLatency, TheListsAreThoseMinusUAndMinusHPrint) {
  const auto stamps = StampsFromDeltas({3000, 1000, 9000, 2000, 5000, 50000, 4000});
  Result<LatResult> r = ComputeLatency(64, stamps, 2, {.unsorted = true, .sorted = true});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->unsorted_us, (std::vector<double>{1.5, 0.5, 4.5, 1.0, 2.5, 25.0, 2.0}));
  EXPECT_EQ(r->sorted_us, (std::vector<double>{0.5, 1.0, 1.5, 2.0, 2.5}));
}

TEST(ComputeLatency, EvenMedianIsIntegerMeanOfMiddlePair) {
  // Sorted kept part: 1000 2001 3000 4000 (M' = 4); dropped 7000 8000.
  const auto stamps = StampsFromDeltas({8000, 3000, 1000, 7000, 4000, 2001});
  Result<LatResult> r = ComputeLatency(2, stamps, /*rtt_factor=*/1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // (3000 + 2001) / 2 = 2500 in integer ns, not 2500.5.
  EXPECT_DOUBLE_EQ(r->t_typical_us, 2.5);
  EXPECT_DOUBLE_EQ(r->t_max_us, 7.0);
  EXPECT_DOUBLE_EQ(r->t_avg_us, (1.0 + 2.001 + 3.0 + 4.0) / 4);
}

TEST(ComputeLatency, PercentilesUseCeilIndex) {
  // 152 deltas 1..152 us in shuffled order; M' = 150.
  std::vector<uint64_t> deltas(152);
  std::iota(deltas.begin(), deltas.end(), 1);
  for (uint64_t& d : deltas) d *= 1000;
  std::shuffle(deltas.begin(), deltas.end(), std::mt19937(7));
  Result<LatResult> r = ComputeLatency(2, StampsFromDeltas(deltas), 1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // ceil(148.5) = 149 -> d[149] = 150 us (floor would give 149 us).
  EXPECT_DOUBLE_EQ(r->p99_us, 150.0);
  // ceil(149.85) = 150 -> d[150] = 151 us = t_max.
  EXPECT_DOUBLE_EQ(r->p999_us, 151.0);
  EXPECT_DOUBLE_EQ(r->t_max_us, 151.0);
  EXPECT_DOUBLE_EQ(r->t_min_us, 1.0);
  EXPECT_DOUBLE_EQ(r->t_typical_us, 75.5);  // (75000 + 76000) / 2
  EXPECT_EQ(r->iterations, 153u);
}

TEST(ComputeLatency, SmallestValidInputStaysInBounds) {
  const auto stamps = StampsFromDeltas({3000, 1000, 2000});  // M' = 1
  Result<LatResult> r = ComputeLatency(2, stamps, 1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_DOUBLE_EQ(r->t_min_us, 1.0);
  EXPECT_DOUBLE_EQ(r->t_typical_us, 1.0);
  EXPECT_DOUBLE_EQ(r->t_max_us, 2.0);
  EXPECT_DOUBLE_EQ(r->p99_us, 2.0);  // ceil(0.99) = 1
}

TEST(ComputeLatency, RejectsBadInput) {
  EXPECT_EQ(ComputeLatency(2, StampsFromDeltas({1, 2}), 1).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ComputeLatency(2, {}, 1).status().code(),
            StatusCode::kInvalidArgument);
  const auto stamps = StampsFromDeltas({1, 2, 3, 4});
  EXPECT_EQ(ComputeLatency(2, stamps, 3).status().code(),
            StatusCode::kInvalidArgument);
  std::vector<uint64_t> backwards = stamps;
  backwards[2] = backwards[1] - 1;
  EXPECT_EQ(ComputeLatency(2, backwards, 1).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ComputeLatencyDuration, AverageAndTransactionsPerSecond) {
  Result<LatDurationResult> r =
      ComputeLatencyDuration(64, 1000, /*window_ns=*/4'000'000, 2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->size, 64u);
  EXPECT_EQ(r->iterations, 1000u);
  EXPECT_DOUBLE_EQ(r->t_avg_us, 2.0);   // 4 ms / 2 / 1000
  EXPECT_DOUBLE_EQ(r->tps, 250'000.0);  // 1000 / 4 ms
  Result<LatDurationResult> read =
      ComputeLatencyDuration(64, 1000, 4'000'000, 1);
  ASSERT_TRUE(read.ok());
  EXPECT_DOUBLE_EQ(read->t_avg_us, 4.0);
  EXPECT_DOUBLE_EQ(read->tps, 250'000.0);
  EXPECT_FALSE(ComputeLatencyDuration(64, 0, 4'000'000, 2).ok());
  EXPECT_FALSE(ComputeLatencyDuration(64, 10, 0, 2).ok());
  EXPECT_FALSE(ComputeLatencyDuration(64, 10, 10, 0).ok());
}

TEST(ComputeBandwidthDuration, UsesTheWindowItIsGiven) {
  // 3000 messages of 64 KiB in a 2 s window (-D 4, margin 1).
  Result<BwResult> r = ComputeBandwidthDuration(65536, 3000, /*window_ns=*/2'000'000'000);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->iterations, 3000u);
  EXPECT_DOUBLE_EQ(r->avg_bytes_per_s, 65536.0 * 3000 / 2);
  EXPECT_DOUBLE_EQ(r->msg_rate_mpps, 3000 / 2 / 1e6);
  EXPECT_EQ(r->peak_bytes_per_s, 0.0);  // never a peak in duration mode
  EXPECT_FALSE(ComputeBandwidthDuration(65536, 0, 2'000'000'000).ok());
  EXPECT_FALSE(ComputeBandwidthDuration(65536, 3000, 0).ok());
}

TEST(RttFactor, ReadIsFullRoundTripOthersHalf) {
  EXPECT_EQ(RttFactor(Verb::kRead), 1);
  EXPECT_EQ(RttFactor(Verb::kAtomic), 1);  // run_iter_lat, like READ
  EXPECT_EQ(RttFactor(Verb::kWrite), 2);
  EXPECT_EQ(RttFactor(Verb::kSend), 2);
}

}  // namespace
}  // namespace xfer::bench
