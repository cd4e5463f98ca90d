// How RailStriper deals a request's bytes over rails: by bandwidth and
// bytes in flight, whole for small requests, round-robin every
// probe_every-th request, with estimates that follow what rails achieve.
#include "core/rail_striper.h"

#include <gtest/gtest.h>

#include <chrono>
#include <algorithm>
#include <numeric>
#include <vector>

namespace xfer::core {
namespace {

using Slice = RailStriper::Slice;
using Clock = RailStriper::Clock;

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = kKiB * kKiB;

// Every byte of [0, bytes) in exactly one slice, in order.
void ExpectCovers(const std::vector<Slice>& slices, uint64_t bytes) {
  uint64_t next = 0;
  for (const Slice& slice : slices) {
    EXPECT_EQ(slice.offset, next);
    EXPECT_GT(slice.length, 0u);
    next += slice.length;
  }
  EXPECT_EQ(next, bytes);
}

std::vector<uint64_t> BytesPerRail(const std::vector<Slice>& slices, size_t rails) {
  std::vector<uint64_t> bytes(rails, 0);
  for (const Slice& slice : slices) bytes[slice.rail] += slice.length;
  return bytes;
}

TEST(RailStriper, TwoEqualRailsSplitALargeRequestInHalves) {
  const double rates[] = {12.5e9, 12.5e9};
  RailStriper striper(rates, {});
  std::vector<Slice> slices;
  striper.Deal(kMiB, slices);
  ExpectCovers(slices, kMiB);
  EXPECT_EQ(slices.size(), 16u);  // 64 KiB units, alternating
  EXPECT_EQ(BytesPerRail(slices, 2), (std::vector<uint64_t>{kMiB / 2, kMiB / 2}));
  EXPECT_EQ(striper.Stats(0).in_flight, kMiB / 2);
  EXPECT_EQ(striper.Stats(1).in_flight, kMiB / 2);
}

TEST(RailStriper, AFasterRailTakesItsShare) {
  const double rates[] = {25e9, 12.5e9};
  RailStriper striper(rates, {});
  std::vector<Slice> slices;
  striper.Deal(3 * kMiB, slices);
  ExpectCovers(slices, 3 * kMiB);
  const std::vector<uint64_t> bytes = BytesPerRail(slices, 2);
  EXPECT_EQ(bytes[0], 2 * kMiB);
  EXPECT_EQ(bytes[1], kMiB);
}

TEST(RailStriper, ASmallRequestStaysWholeOnTheLeastLoadedRail) {
  const double rates[] = {12.5e9, 12.5e9};
  RailStriper striper(rates, {});
  std::vector<Slice> big;
  striper.Deal(kMiB, big);
  // Rail 1's half completes; rail 0's is still in flight.
  const auto now = Clock::now();
  striper.Completed(1, kMiB / 2, now + std::chrono::microseconds(40), true);
  std::vector<Slice> small;
  striper.Deal(4 * kKiB, small);
  ASSERT_EQ(small.size(), 1u);
  EXPECT_EQ(small[0].rail, 1u);
  EXPECT_EQ(small[0].length, 4 * kKiB);
}

// Tiny requests keep to rail 0 until it holds a slice more than the least
// loaded rail: they are bound by CPU, and another rail costs its threads.
TEST(RailStriper, TinyRequestsKeepToRailZeroUntilItBacksUp) {
  const double rates[] = {12.5e9, 12.5e9};
  RailStriper striper(rates, {});
  for (int i = 0; i < 90; ++i) {
    std::vector<Slice> slices;
    striper.Deal(8, slices);
    ASSERT_EQ(slices[0].rail, 0u) << i;
  }
  std::vector<Slice> block;
  striper.Deal(128 * kKiB, block);  // small too, but backs rail 0 up
  EXPECT_EQ(block[0].rail, 0u);
  std::vector<Slice> next;
  striper.Deal(8, next);
  EXPECT_EQ(next[0].rail, 1u);
}

TEST(RailStriper, EveryHundredthRequestProbesTheRailsInTurn) {
  const double rates[] = {100e9, 1e9};  // the second would never win on score
  RailStriper striper(rates, {});
  int on_slow = 0;
  for (int i = 0; i < 200; ++i) {
    std::vector<Slice> slices;
    striper.Deal(8, slices);
    ASSERT_EQ(slices.size(), 1u);
    if (slices[0].rail == 1) ++on_slow;
    const auto now = Clock::now();
    striper.Completed(slices[0].rail, 8, now, true);
  }
  // Requests 99 and 199: the first probe goes to rail 0, the second to 1.
  EXPECT_EQ(on_slow, 1);
}

TEST(RailStriper, AHugeRequestTakesAtMostMaxSlicesOfWholeUnits) {
  const double rates[] = {12.5e9, 12.5e9, 12.5e9};
  RailStriper striper(rates, {});
  std::vector<Slice> slices;
  const uint64_t bytes = 64 * kMiB + 3;
  striper.Deal(bytes, slices);
  ExpectCovers(slices, bytes);
  EXPECT_LE(slices.size(), 32u);
  for (size_t i = 0; i + 1 < slices.size(); ++i) EXPECT_EQ(slices[i].length % (64 * kKiB), 0u);
}

TEST(RailStriper, AShortTailJoinsTheSliceBeforeIt) {
  const double rates[] = {12.5e9, 12.5e9};
  RailStriper striper(rates, {});
  std::vector<Slice> slices;
  const uint64_t bytes = 5 * 64 * kKiB + 10 * kKiB;  // a 10 KiB tail, under a quarter slice
  striper.Deal(bytes, slices);
  ExpectCovers(slices, bytes);
  ASSERT_EQ(slices.size(), 5u);
  EXPECT_EQ(slices.back().length, 74 * kKiB);
}

// Two rails that claim 12.5 GB/s each; rail 1 carries 1 GB/s. Requests of
// 1 MiB arrive every 100 us; each rail serves its slices in order at its
// real rate, and reports each when done.
TEST(RailStriper, EstimatesFollowWhatTheRailsAchieve) {
  const double rates[] = {12.5e9, 12.5e9};
  RailStriper striper(rates, {});
  const double achieved[] = {12.5e9, 1e9};
  struct Done {
    Clock::time_point at;
    uint32_t rail;
    uint64_t bytes;
  };
  std::vector<Done> pending;
  Clock::time_point free_at[2];
  const Clock::time_point start = Clock::now();
  const auto report_until = [&](Clock::time_point now) {
    std::sort(pending.begin(), pending.end(), [](const Done& a, const Done& b) { return a.at < b.at; });
    while (!pending.empty() && pending.front().at <= now) {
      striper.Completed(pending.front().rail, pending.front().bytes, pending.front().at, true);
      pending.erase(pending.begin());
    }
  };
  for (int i = 0; i < 400; ++i) {
    const Clock::time_point now = start + std::chrono::microseconds(100 * i);
    report_until(now);
    std::vector<Slice> slices;
    striper.Deal(kMiB, slices);
    for (const Slice& slice : slices) {
      free_at[slice.rail] = std::max(free_at[slice.rail], now) +
                            std::chrono::nanoseconds(static_cast<int64_t>(
                                static_cast<double>(slice.length) * 1e9 / achieved[slice.rail]));
      pending.push_back({free_at[slice.rail], slice.rail, slice.length});
    }
  }
  report_until(Clock::time_point::max());
  EXPECT_EQ(striper.Stats(0).in_flight, 0u);
  EXPECT_EQ(striper.Stats(1).in_flight, 0u);
  EXPECT_GT(striper.Stats(0).bytes_per_sec, 5 * striper.Stats(1).bytes_per_sec);
  std::vector<Slice> slices;
  striper.Deal(4 * kMiB, slices);
  const std::vector<uint64_t> bytes = BytesPerRail(slices, 2);
  EXPECT_GT(bytes[0], 5 * bytes[1]);
}

TEST(RailStriper, AFailedSliceLeavesTheFlightAndTheEstimateAlone) {
  const double rates[] = {12.5e9, 12.5e9};
  RailStriper striper(rates, {});
  std::vector<Slice> slices;
  striper.Deal(kMiB, slices);
  const auto now = Clock::now();
  striper.Completed(0, kMiB / 2, now + std::chrono::seconds(1), false);
  EXPECT_EQ(striper.Stats(0).in_flight, 0u);
  EXPECT_EQ(striper.Stats(0).bytes, 0u);
  EXPECT_EQ(striper.Stats(0).bytes_per_sec, 12.5e9);
}

TEST(RailStriper, OneRailTakesEverything) {
  const double rates[] = {0};
  RailStriper striper(rates, {});
  std::vector<Slice> slices;
  striper.Deal(8 * kMiB, slices);
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(slices[0].rail, 0u);
  EXPECT_EQ(slices[0].length, 8 * kMiB);
}

}  // namespace
}  // namespace xfer::core
