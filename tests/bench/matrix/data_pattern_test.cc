#include "bench/matrix/data_pattern.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace xfer::matrix {
namespace {

TEST(DataPatternTest, FilledBufferMatchesItsSeedOnly) {
  std::vector<uint8_t> data(4096 + 5);  // a tail shorter than a word
  FillPattern(data.data(), data.size(), 42);
  EXPECT_FALSE(FindPatternMismatch(data.data(), data.size(), 42).has_value());
  EXPECT_EQ(FindPatternMismatch(data.data(), data.size(), 43), std::optional<size_t>(0));
}

TEST(DataPatternTest, ReportsTheFirstDifferingByte) {
  std::vector<uint8_t> data(1000);
  FillPattern(data.data(), data.size(), 7);
  data[517] ^= 1;
  data[900] ^= 1;
  EXPECT_EQ(FindPatternMismatch(data.data(), data.size(), 7), std::optional<size_t>(517));
  data[517] ^= 1;
  data[999] ^= 0x80;
  data[900] ^= 1;
  EXPECT_EQ(FindPatternMismatch(data.data(), data.size(), 7), std::optional<size_t>(999));
}

TEST(DataPatternTest, BlocksSwappedOrShiftedDoNotPass) {
  constexpr size_t kBlock = 256;
  std::vector<uint8_t> data(4 * kBlock);
  FillPattern(data.data(), data.size(), 9);
  std::vector<uint8_t> swapped = data;
  std::memcpy(swapped.data(), data.data() + kBlock, kBlock);
  std::memcpy(swapped.data() + kBlock, data.data(), kBlock);
  EXPECT_EQ(FindPatternMismatch(swapped.data(), swapped.size(), 9), std::optional<size_t>(0));
}

TEST(DataPatternTest, PoisonNeverMatchesAPattern) {
  std::vector<uint8_t> data(64);
  PoisonPattern(data.data(), data.size());
  for (uint64_t seed : {0ull, 1ull, 0xFFFFFFFFFFFFFFFFull}) {
    EXPECT_TRUE(FindPatternMismatch(data.data(), data.size(), seed).has_value());
  }
}

}  // namespace
}  // namespace xfer::matrix
