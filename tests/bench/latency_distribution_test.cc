// The latency distribution --json records: the percentile ladder by nearest
// rank, and log-linear buckets whose counts add up to the samples and whose
// bounds hold each sample.
#include "bench/model/latency_distribution.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace xfer::bench {
namespace {

TEST(LatencyBucket, OneNanosecondEachBelow16ThenSixteenPerPowerOfTwo) {
  EXPECT_EQ(BucketOf(0).from_ns, 0u);
  EXPECT_EQ(BucketOf(15).from_ns, 15u);
  EXPECT_EQ(BucketOf(15).to_ns, 16u);
  EXPECT_EQ(BucketOf(16).to_ns, 17u);  // [16, 32): 16 buckets of 1 ns
  EXPECT_EQ(BucketOf(31).from_ns, 31u);
  EXPECT_EQ(BucketOf(32).from_ns, 32u);  // [32, 64): 16 of 2 ns
  EXPECT_EQ(BucketOf(33).from_ns, 32u);
  EXPECT_EQ(BucketOf(33).to_ns, 34u);
  EXPECT_EQ(BucketOf(1000).from_ns, 992u);  // [512, 1024): 16 of 32 ns
  EXPECT_EQ(BucketOf(1000).to_ns, 1024u);
  const LatBucket top = BucketOf(UINT64_MAX);
  EXPECT_EQ(top.to_ns, UINT64_MAX);
  EXPECT_LT(top.from_ns, top.to_ns);
  // Never wider than 1/16 of its lower bound, above the linear part.
  for (uint64_t ns : {17u, 100u, 4095u, 123456u, 987654321u}) {
    const LatBucket b = BucketOf(ns);
    EXPECT_LE(b.from_ns, ns);
    EXPECT_LT(ns, b.to_ns);
    EXPECT_LE((b.to_ns - b.from_ns) * 16, b.from_ns) << ns;
  }
}

TEST(LatencyDistribution, NearestRankLadderAndBucketsThatRedrawTheSamples) {
  std::vector<uint64_t> sorted;
  for (uint64_t i = 1; i <= 1000; ++i) sorted.push_back(i * 1000);  // 1 .. 1000 us
  EXPECT_EQ(NearestRank(sorted, 50), 500'000u);
  EXPECT_EQ(NearestRank(sorted, 99.9), 999'000u);
  EXPECT_EQ(NearestRank(sorted, 99.999), 1'000'000u);
  EXPECT_EQ(NearestRank(sorted, 0.001), 1'000u);

  const LatDistribution d = DescribeLatency(sorted, 1, 2);
  EXPECT_EQ(d.samples, 1000u);
  EXPECT_EQ(d.dropped, 2u);
  EXPECT_DOUBLE_EQ(d.min_us, 1);
  EXPECT_DOUBLE_EQ(d.max_us, 1000);
  ASSERT_EQ(d.percentiles.size(), kLatencyLadder.size());
  EXPECT_DOUBLE_EQ(d.percentiles[0].first, 25);
  EXPECT_DOUBLE_EQ(d.percentiles[0].second, 250);
  EXPECT_DOUBLE_EQ(d.percentiles[4].first, 99);
  EXPECT_DOUBLE_EQ(d.percentiles[4].second, 990);
  uint64_t counted = 0;
  uint64_t previous_to = 0;
  for (const LatBucket& b : d.buckets) {
    EXPECT_GT(b.count, 0u);
    EXPECT_LE(previous_to, b.from_ns);
    previous_to = b.to_ns;
    counted += b.count;
  }
  EXPECT_EQ(counted, 1000u);
  // Each sample lies in the bucket that counts it.
  size_t bucket = 0;
  for (uint64_t ns : sorted) {
    while (ns >= d.buckets[bucket].to_ns) ++bucket;
    EXPECT_GE(ns, d.buckets[bucket].from_ns);
  }
}

TEST(LatencyDistribution, OneSampleIsEveryPercentile) {
  const std::vector<uint64_t> one = {701};
  const LatDistribution d = DescribeLatency(one, 2, 2);  // one way: half of 701 ns
  for (const auto& [p, us] : d.percentiles) EXPECT_DOUBLE_EQ(us, 0.3505) << p;
  EXPECT_DOUBLE_EQ(d.min_us, 0.3505);
  ASSERT_EQ(d.buckets.size(), 1u);
  EXPECT_EQ(d.buckets[0].count, 1u);
  // 350 ns (the ns below 350.5) lies in [336, 352): 16 ns wide above 256.
  EXPECT_EQ(d.buckets[0].from_ns, 336u);
  EXPECT_EQ(d.buckets[0].to_ns, 352u);
}

}  // namespace
}  // namespace xfer::bench
