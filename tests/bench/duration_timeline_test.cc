// The -D timeline on a fake clock: the phase edges sit at margin and
// D - margin from the start, only events recorded inside the sample phase
// count, and the window is the scheduled D - 2*margin however the events
// fall (perftest.md §2.3, catch_alarm).
#include "bench/model/duration_timeline.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace xfer::bench {
namespace {

using Phase = DurationTimeline::Phase;

constexpr uint64_t kSecond = 1'000'000'000;
// An arbitrary, large start: NowNs() readings are nowhere near 0.
constexpr uint64_t kStart = 123'456'789'012'345;

// -D 10 -f 2: warm-up [0, 2 s), sample [2 s, 8 s), cool-down [8 s, 10 s).
constexpr DurationWindow kTenWithMargin2{.margin_s = 2, .sample_s = 6};

TEST(DurationTimeline, PhaseEdgesSitAtMarginAndDurationMinusMargin) {
  const DurationTimeline t(kTenWithMargin2, kStart);
  EXPECT_EQ(t.At(kStart), Phase::kWarmUp);
  EXPECT_EQ(t.At(kStart + 2 * kSecond - 1), Phase::kWarmUp);
  EXPECT_EQ(t.At(kStart + 2 * kSecond), Phase::kSample);
  EXPECT_EQ(t.At(kStart + 8 * kSecond - 1), Phase::kSample);
  EXPECT_EQ(t.At(kStart + 8 * kSecond), Phase::kCoolDown);
  EXPECT_EQ(t.At(kStart + 10 * kSecond - 1), Phase::kCoolDown);
  EXPECT_EQ(t.At(kStart + 10 * kSecond), Phase::kEnd);
  EXPECT_EQ(t.At(kStart + 60 * kSecond), Phase::kEnd);
}

TEST(DurationTimeline, NextBoundaryIsTheStartOfTheFollowingPhase) {
  const DurationTimeline t(kTenWithMargin2, kStart);
  EXPECT_EQ(t.NextBoundaryNs(kStart), kStart + 2 * kSecond);
  EXPECT_EQ(t.NextBoundaryNs(kStart + 2 * kSecond - 1), kStart + 2 * kSecond);
  EXPECT_EQ(t.NextBoundaryNs(kStart + 2 * kSecond), kStart + 8 * kSecond);
  EXPECT_EQ(t.NextBoundaryNs(kStart + 8 * kSecond), kStart + 10 * kSecond);
  EXPECT_EQ(t.NextBoundaryNs(kStart + 60 * kSecond), kStart + 10 * kSecond);
}

TEST(DurationTimeline, CountsOnlyEventsInsideTheSamplePhase) {
  DurationTimeline t(kTenWithMargin2, kStart);
  EXPECT_EQ(t.Record(kStart + 1 * kSecond, 100), Phase::kWarmUp);
  EXPECT_EQ(t.Record(kStart + 2 * kSecond - 1, 7), Phase::kWarmUp);
  EXPECT_EQ(t.Record(kStart + 2 * kSecond, 3), Phase::kSample);
  EXPECT_EQ(t.Record(kStart + 5 * kSecond), Phase::kSample);
  EXPECT_EQ(t.Record(kStart + 8 * kSecond - 1, 10), Phase::kSample);
  EXPECT_EQ(t.Record(kStart + 8 * kSecond, 50), Phase::kCoolDown);
  EXPECT_EQ(t.Record(kStart + 11 * kSecond, 9), Phase::kEnd);
  EXPECT_EQ(t.sample_count(), 3u + 1u + 10u);
}

TEST(DurationTimeline, WindowIsTheScheduledSampleNotTheSpanOfItsEvents) {
  // Two events close together in the middle of the sample: a "first to last
  // event" window would be 1 ms; perftest's alarm makes it 6 s.
  DurationTimeline sparse(kTenWithMargin2, kStart);
  sparse.Record(kStart + 4 * kSecond);
  sparse.Record(kStart + 4 * kSecond + 1'000'000);
  EXPECT_EQ(sparse.sample_count(), 2u);
  EXPECT_EQ(sparse.sample_ns(), 6 * kSecond);

  // No event at all, and events everywhere: the same window.
  const DurationTimeline idle(kTenWithMargin2, kStart);
  EXPECT_EQ(idle.sample_count(), 0u);
  EXPECT_EQ(idle.sample_ns(), 6 * kSecond);
  DurationTimeline busy(kTenWithMargin2, kStart);
  for (uint64_t ms = 0; ms < 10'000; ++ms) busy.Record(kStart + ms * 1'000'000);
  EXPECT_EQ(busy.sample_count(), 6'000u);  // ms 2000 .. 7999
  EXPECT_EQ(busy.sample_ns(), 6 * kSecond);
}

TEST(DurationTimeline, WindowDoesNotDependOnTheStart) {
  // Seconds that are not exact in binary must not make the window depend on
  // where the run started.
  constexpr DurationWindow kOdd{.margin_s = 0.3, .sample_s = 0.7};
  const DurationTimeline a(kOdd, 0);
  const DurationTimeline b(kOdd, kStart);
  EXPECT_EQ(a.sample_ns(), 700'000'000u);
  EXPECT_EQ(b.sample_ns(), 700'000'000u);
  EXPECT_EQ(b.At(kStart + 300'000'000), Phase::kSample);
  EXPECT_EQ(b.At(kStart + 1'000'000'000), Phase::kCoolDown);
  EXPECT_EQ(b.At(kStart + 1'300'000'000), Phase::kEnd);
}

TEST(DurationTimeline, ZeroMarginSamplesTheWholeRun) {
  // -D 3: perftest's integer margin 3/4 = 0, so there is no warm-up and no
  // cool-down; the sample is all 3 s.
  DurationTimeline t({.margin_s = 0, .sample_s = 3}, kStart);
  EXPECT_EQ(t.Record(kStart), Phase::kSample);
  EXPECT_EQ(t.At(kStart + 3 * kSecond - 1), Phase::kSample);
  EXPECT_EQ(t.At(kStart + 3 * kSecond), Phase::kEnd);
  EXPECT_EQ(t.sample_count(), 1u);
  EXPECT_EQ(t.sample_ns(), 3 * kSecond);
}

}  // namespace
}  // namespace xfer::bench
