#include "bench/matrix/cell_statistic.h"

#include <gtest/gtest.h>

#include <vector>

namespace xfer::matrix {
namespace {

constexpr uint64_t kSampleBytes = 128ull << 20;  // 134217728

TEST(CellStatisticTest, MedianOfOddCountIsTheMiddleSampleInDecimalGigabytes) {
  // 1.0 s, 0.5 s, 2.0 s for 128 MiB: 0.134, 0.268, 0.067 GB/s.
  const std::vector<double> seconds = {1.0, 0.5, 2.0};
  auto stat = ComputeCellStatistic(kSampleBytes, seconds);
  ASSERT_TRUE(stat.ok());
  EXPECT_DOUBLE_EQ(stat->median_gbps, 0.134217728);
  EXPECT_DOUBLE_EQ(stat->max_gbps, 0.268435456);
  EXPECT_DOUBLE_EQ(stat->min_gbps, 0.067108864);
}

TEST(CellStatisticTest, MedianOfEvenCountIsTheMeanOfTheMiddleTwo) {
  const std::vector<double> seconds = {1.0, 2.0, 4.0, 0.25};  // 1e9-byte units below
  auto stat = ComputeCellStatistic(1'000'000'000, seconds);
  ASSERT_TRUE(stat.ok());
  EXPECT_DOUBLE_EQ(stat->median_gbps, (1.0 + 0.5) / 2);
  EXPECT_DOUBLE_EQ(stat->min_gbps, 0.25);
  EXPECT_DOUBLE_EQ(stat->max_gbps, 4.0);
}

TEST(CellStatisticTest, AnOutlierMovesTheMeanButNotTheMedian) {
  const std::vector<double> seconds = {1.0, 1.0, 1.0, 1.0, 100.0};
  auto stat = ComputeCellStatistic(1'000'000'000, seconds);
  ASSERT_TRUE(stat.ok());
  EXPECT_DOUBLE_EQ(stat->median_gbps, 1.0);
  EXPECT_DOUBLE_EQ(stat->min_gbps, 0.01);
}

TEST(CellStatisticTest, RefusesNoSamplesAndNonPositiveTimes) {
  EXPECT_FALSE(ComputeCellStatistic(kSampleBytes, std::vector<double>{}).ok());
  EXPECT_FALSE(ComputeCellStatistic(kSampleBytes, std::vector<double>{1.0, 0.0}).ok());
  EXPECT_FALSE(ComputeCellStatistic(kSampleBytes, std::vector<double>{-1.0}).ok());
}

}  // namespace
}  // namespace xfer::matrix
