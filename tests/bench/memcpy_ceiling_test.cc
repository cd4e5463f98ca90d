// Single-core memcpy as a ceiling: argument checks, and a figure that is a
// real measurement of the copy asked for.
#include "bench/memcpy_ceiling.h"

#include <gtest/gtest.h>

#include <chrono>

namespace xfer::bench {
namespace {

constexpr MemcpyTiming kQuick{2, std::chrono::microseconds(2000)};

TEST(MemcpyCeiling, RefusesABlockThatDoesNotTileTheSpan) {
  auto zero = MeasureMemcpy(0, 4096, kQuick);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().code(), StatusCode::kInvalidArgument);
  auto ragged = MeasureMemcpy(3000, 4096, kQuick);
  ASSERT_FALSE(ragged.ok());
  EXPECT_NE(ragged.status().message().find("3000"), std::string::npos);
}

TEST(MemcpyCeiling, MeasuresAPlausibleRateForOneBlockAndForASpan) {
  // Any host copies 64 KiB faster than 100 MB/s and slower than 10 TB/s.
  auto fixed = MeasureMemcpy(64 << 10, 64 << 10, kQuick);
  ASSERT_TRUE(fixed.ok()) << fixed.status().ToString();
  EXPECT_GT(*fixed, 1e8);
  EXPECT_LT(*fixed, 1e13);
  auto spread = MeasureMemcpy(16 << 10, 8 << 20, kQuick);
  ASSERT_TRUE(spread.ok()) << spread.status().ToString();
  EXPECT_GT(*spread, 1e8);
  EXPECT_LT(*spread, 1e13);
}

TEST(MemcpyCeiling, TakesAtLeastItsTrialTime) {
  const auto start = std::chrono::steady_clock::now();
  auto rate = MeasureMemcpy(4096, 4096, {3, std::chrono::microseconds(5000)});
  ASSERT_TRUE(rate.ok());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(15));
}

}  // namespace
}  // namespace xfer::bench
