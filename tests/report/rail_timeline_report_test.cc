// --timeline's report: Gb/s per rail per interval, '*' where a rail was
// down, the loss placed on the timeline's clock, and the recovery read off
// it (the others back to 90% of their median rate before).
#include "report/rail_timeline_report.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace xfer::report {
namespace {

using namespace std::chrono_literals;
using bench::RailTimeline;

constexpr uint64_t kGbitPer100Ms = 12'500'000;  // 1 Gb/s for 100 ms

// Two rails at 1 Gb/s each for 500 ms; rail 1 goes down at 550 ms; rail 0
// carries `after` (bytes per 100 ms) from then on, for 5 intervals.
RailTimeline TwoRails(std::vector<uint64_t> after) {
  RailTimeline timeline;
  timeline.interval = 100ms;
  timeline.start = std::chrono::system_clock::time_point(1'800'000'000s);
  uint64_t end = 0;
  for (int i = 0; i < 5; ++i) {
    end += 100;
    timeline.samples.push_back({end, {kGbitPer100Ms, kGbitPer100Ms}, {true, true}});
  }
  for (uint64_t bytes : after) {
    end += 100;
    timeline.samples.push_back({end, {bytes, 0}, {true, false}});
  }
  timeline.rails.resize(2);
  timeline.rails[0].local = "10.0.1.1";
  timeline.rails[0].remote = "10.0.1.2";
  timeline.rails[1].local = "10.0.2.1";
  timeline.rails[1].remote = "10.0.2.2";
  timeline.rails[1].up = false;
  timeline.rails[1].failure = "connection lost: the link is down";
  timeline.rails[1].events.push_back({timeline.start + 550ms, false, timeline.rails[1].failure});
  return timeline;
}

TEST(RailTimelineReportTest, TheLossAndTheRecoveryAreReadOffTheTimeline) {
  // 600: half (the interval the loss fell in, not counted: it began
  // before), 700: 95 %, back.
  const RailTimeline timeline =
      TwoRails({kGbitPer100Ms / 2, kGbitPer100Ms * 95 / 100, kGbitPer100Ms, kGbitPer100Ms,
                kGbitPer100Ms});
  const std::vector<RailRecovery> recoveries = RailRecoveries(timeline);
  ASSERT_EQ(recoveries.size(), 1u);
  EXPECT_EQ(recoveries[0].rail, 1u);
  EXPECT_DOUBLE_EQ(recoveries[0].down_ms, 550);
  EXPECT_NEAR(recoveries[0].survivors_before_gbps, 1.0, 1e-9);
  ASSERT_TRUE(recoveries[0].recovered_ms.has_value());
  EXPECT_DOUBLE_EQ(*recoveries[0].recovered_ms, 700);

  const std::string lines = RailTimelineLines(timeline);
  EXPECT_NE(lines.find("Gb/s per rail every 100 ms, from 2027-01-15T08:00:00.000Z"),
            std::string::npos)
      << lines;
  EXPECT_NE(lines.find("   0.50     1.00      1.00 \n"), std::string::npos) << lines;
  EXPECT_NE(lines.find("   0.60     0.50      0.00*\n"), std::string::npos) << lines;
  EXPECT_NE(lines.find(" rail 1 (10.0.2.1->10.0.2.2) down at 0.550 s: connection lost"),
            std::string::npos)
      << lines;
  EXPECT_NE(lines.find("again by 0.700 s (150 ms after)"), std::string::npos) << lines;
}

TEST(RailTimelineReportTest, SurvivorsThatNeverRecoverAreSaidToHaveNot) {
  const RailTimeline timeline = TwoRails({0, kGbitPer100Ms / 4, kGbitPer100Ms / 2});
  const std::vector<RailRecovery> recoveries = RailRecoveries(timeline);
  ASSERT_EQ(recoveries.size(), 1u);
  EXPECT_FALSE(recoveries[0].recovered_ms.has_value());
  EXPECT_NE(RailTimelineLines(timeline).find("did not carry 90% of their 1.00 Gb/s before again"),
            std::string::npos);
  const nlohmann::json json = RailTimelineJson(timeline);
  EXPECT_TRUE(json["recoveries"][0]["recovered_ms"].is_null());
}

TEST(RailTimelineReportTest, JsonKeepsEverySampleAndTheRails) {
  const RailTimeline timeline = TwoRails({kGbitPer100Ms, kGbitPer100Ms});
  const nlohmann::json json = RailTimelineJson(timeline);
  EXPECT_EQ(json["interval_ms"], 100);
  EXPECT_EQ(json["start"], "2027-01-15T08:00:00.000Z");
  EXPECT_EQ(json["rails"], nlohmann::json({"10.0.1.1->10.0.1.2", "10.0.2.1->10.0.2.2"}));
  ASSERT_EQ(json["samples"].size(), 7u);
  EXPECT_EQ(json["samples"][5]["end_ms"], 600);
  EXPECT_EQ(json["samples"][5]["bytes"], nlohmann::json({kGbitPer100Ms, 0}));
  EXPECT_EQ(json["samples"][5]["up"], nlohmann::json({true, false}));
  EXPECT_EQ(json["recoveries"][0]["down_ms"], 550.0);
  // Not 600: that interval began before the loss, at 500.
  EXPECT_EQ(json["recoveries"][0]["recovered_ms"], 700.0);
}

// Rail 1 comes back at 820 ms and carries again in the interval ending at
// 900; the engine's remark in between (the rail still down) is not a
// second loss.
TEST(RailTimelineReportTest, AReturnedRailIsPlacedOnTheTimelineWithWhenItCarriedAgain) {
  RailTimeline timeline =
      TwoRails({kGbitPer100Ms, kGbitPer100Ms, kGbitPer100Ms, kGbitPer100Ms, kGbitPer100Ms});
  timeline.samples[7].up = {true, true};
  timeline.samples[8].bytes = {kGbitPer100Ms, kGbitPer100Ms / 2};
  timeline.samples[8].up = {true, true};
  timeline.samples[9].bytes = {kGbitPer100Ms, kGbitPer100Ms};
  timeline.samples[9].up = {true, true};
  timeline.rails[1].up = true;
  timeline.rails[1].failure.clear();
  timeline.rails[1].events.push_back({timeline.start + 600ms, false, "not tried yet"});
  timeline.rails[1].events.push_back({timeline.start + 820ms, true, "rejoined: set up again"});
  const std::vector<RailRecovery> recoveries = RailRecoveries(timeline);
  ASSERT_EQ(recoveries.size(), 1u);
  EXPECT_EQ(recoveries[0].reason, "connection lost: the link is down");
  ASSERT_TRUE(recoveries[0].up_ms.has_value());
  EXPECT_DOUBLE_EQ(*recoveries[0].up_ms, 820);
  ASSERT_TRUE(recoveries[0].carrying_ms.has_value());
  EXPECT_DOUBLE_EQ(*recoveries[0].carrying_ms, 900);
  const std::string lines = RailTimelineLines(timeline);
  EXPECT_NE(lines.find("down at 0.550 s: connection lost: the link is down\n"), std::string::npos)
      << lines;
  EXPECT_NE(lines.find(" rail 1 up again at 0.820 s (270 ms after); carried bytes again by "
                       "0.900 s\n"),
            std::string::npos)
      << lines;
  const nlohmann::json json = RailTimelineJson(timeline);
  EXPECT_EQ(json["recoveries"][0]["up_ms"], 820.0);
  EXPECT_EQ(json["recoveries"][0]["carrying_ms"], 900.0);
  EXPECT_EQ(json["recoveries"][0]["reason"], "connection lost: the link is down");
}

// Down for good: no return, in the lines or the JSON.
TEST(RailTimelineReportTest, ARailThatStaysDownHasNoReturn) {
  const RailTimeline timeline = TwoRails({kGbitPer100Ms, kGbitPer100Ms});
  EXPECT_FALSE(RailRecoveries(timeline)[0].up_ms.has_value());
  EXPECT_EQ(RailTimelineLines(timeline).find("up again"), std::string::npos);
  EXPECT_TRUE(RailTimelineJson(timeline)["recoveries"][0]["up_ms"].is_null());
}

// A run cut short inside an interval: its rate is over its own length.
TEST(RailTimelineReportTest, AShortLastIntervalIsRatedOverItsOwnLength) {
  RailTimeline timeline;
  timeline.interval = 100ms;
  timeline.rails.resize(2);
  timeline.samples.push_back({100, {kGbitPer100Ms, kGbitPer100Ms}, {true, true}});
  timeline.samples.push_back({150, {kGbitPer100Ms / 2, 0}, {true, true}});
  const std::string lines = RailTimelineLines(timeline);
  EXPECT_NE(lines.find("   0.15     1.00      0.00 \n"), std::string::npos) << lines;
  EXPECT_TRUE(RailRecoveries(timeline).empty());
}

}  // namespace
}  // namespace xfer::report
