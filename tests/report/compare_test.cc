// report/compare.h: ratios, spread marks, points in one run only, and the
// refusal of runs of different kinds.
#include "report/compare.h"

#include <gtest/gtest.h>

#include "report/run_builders.h"

namespace xfer::report {
namespace {

using nlohmann::json;
using testing::BandwidthJson;
using testing::MatrixJson;
using testing::Parse;

TEST(Compare, PerftestRatiosWithUnknownSpread) {
  const RunDocument a = Parse("a.json", BandwidthJson({{2, 1.0}, {4, 2.0}, {8, 4.0}}));
  const RunDocument b = Parse("b.json", BandwidthJson({{4, 3.0}, {8, 2.0}, {16, 8.0}}));
  auto comparison = CompareRuns(a, b);
  ASSERT_TRUE(comparison.ok()) << comparison.status().message();
  ASSERT_EQ(comparison->points.size(), 4u);
  const ComparePoint& only_a = comparison->points[0];
  EXPECT_EQ(only_a.key, "2");
  EXPECT_FALSE(only_a.b.value.has_value());
  EXPECT_EQ(only_a.b.missing, "not in b.json");
  EXPECT_FALSE(only_a.ratio.has_value());
  EXPECT_DOUBLE_EQ(*comparison->points[1].ratio, 1.5);
  EXPECT_DOUBLE_EQ(*comparison->points[2].ratio, 0.5);
  for (size_t i = 1; i <= 2; ++i) {
    EXPECT_EQ(comparison->points[i].spread, Spread::kUnknown);
    EXPECT_EQ(comparison->points[i].spread_note, "");
  }
  EXPECT_EQ(comparison->points[3].key, "16");
  EXPECT_EQ(comparison->points[3].a.missing, "not in a.json");

  const std::string text = RenderComparison(*comparison);
  EXPECT_NE(text.find("Compared: RDMA_Write_BW_Test BW_average [Gb/s (10^9 bit/s)]"),
            std::string::npos);
  EXPECT_NE(text.find("1.500"), std::string::npos);
  EXPECT_NE(text.find("Spread: unknown for every point: perftest bandwidth rows carry an "
                      "average and a peak, not a spread across runs"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("0 within spread, 0 outside spread, 2 spread unknown, 2 not in both"),
            std::string::npos)
      << text;
}

TEST(Compare, MatrixSpreadFromSamples) {
  const RunDocument a = Parse("a.json", MatrixJson({{"shm", "H2rH", 16384, {10, 11, 12}},
                                                    {"shm", "H2rH", 65536, {20, 21, 22}},
                                                    {"tcp", "H2rH", 16384, {5}},
                                                    {"tcp", "D2rD", 16384, {}}}));
  const RunDocument b = Parse("b.json", MatrixJson({{"shm", "H2rH", 16384, {11.5, 13, 14}},
                                                    {"shm", "H2rH", 65536, {30, 31, 33}},
                                                    {"tcp", "H2rH", 16384, {6}},
                                                    {"tcp", "D2rD", 16384, {}}}));
  auto comparison = CompareRuns(a, b);
  ASSERT_TRUE(comparison.ok()) << comparison.status().message();
  ASSERT_EQ(comparison->points.size(), 4u);
  const ComparePoint& overlap = comparison->points[0];
  EXPECT_EQ(overlap.key, "shm H2rH 16K");
  EXPECT_DOUBLE_EQ(*overlap.ratio, 13.0 / 11.0);
  EXPECT_EQ(overlap.spread, Spread::kWithin);
  EXPECT_EQ(overlap.spread_note, "A 10.00..12.00, B 11.50..14.00");
  const ComparePoint& apart = comparison->points[1];
  EXPECT_DOUBLE_EQ(*apart.ratio, 31.0 / 21.0);
  EXPECT_EQ(apart.spread, Spread::kOutside);
  const ComparePoint& single = comparison->points[2];
  EXPECT_DOUBLE_EQ(*single.ratio, 6.0 / 5.0);
  EXPECT_EQ(single.spread, Spread::kUnknown);
  EXPECT_EQ(single.spread_note, "unknown: 1 and 1 timed samples");
  const ComparePoint& not_run = comparison->points[3];
  EXPECT_EQ(not_run.a.missing, "n/a");
  EXPECT_FALSE(not_run.ratio.has_value());

  const std::string text = RenderComparison(*comparison);
  EXPECT_NE(text.find("1 within spread, 1 outside spread, 1 spread unknown, 1 not in both"),
            std::string::npos)
      << text;
}

TEST(Compare, RefusesDifferentKinds) {
  const RunDocument bw = Parse("a.json", BandwidthJson({{2, 1.0}}));
  const RunDocument read = Parse("r.json", BandwidthJson({{2, 1.0}}, "RDMA_Read_BW_Test"));
  const RunDocument matrix = Parse("b.json", MatrixJson({{"shm", "H2rH", 16384, {1, 2, 3}}}));
  auto mixed = CompareRuns(bw, matrix);
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.status().message(),
            "a.json is a bandwidth test (RDMA_Write_BW_Test), b.json is a matrix: compare runs of "
            "the same kind and test");
  auto tests = CompareRuns(bw, read);
  ASSERT_FALSE(tests.ok());
  EXPECT_NE(tests.status().message().find("RDMA_Read_BW_Test"), std::string::npos);
}

// Issue 43, item 13: a --report_gbits run compares with a MiB/s one (both
// carry bytes/s): B is converted to A's unit, and the comparison says so.
TEST(Compare, RunsInDifferentUnitsCompareInAsUnit) {
  json mib = BandwidthJson({{2, 1.0}});
  mib["test_info"]["units"] = {{"BW_average", "MiB/s (2^20 bytes/s)"},
                               {"BW_peak", "MiB/s (2^20 bytes/s)"}};
  const RunDocument a = Parse("a.json", mib);  // 1 MiB/s = 1048576 B/s
  const RunDocument b = Parse("b.json", BandwidthJson({{2, 0.016777216}}));  // Gb/s: 2 MiB/s
  auto comparison = CompareRuns(a, b);
  ASSERT_TRUE(comparison.ok()) << comparison.status().message();
  ASSERT_EQ(comparison->points.size(), 1u);
  EXPECT_NEAR(*comparison->points[0].b.value, 2.0, 1e-9);
  EXPECT_NEAR(*comparison->points[0].ratio, 2.0, 1e-9);
  const std::string text = RenderComparison(*comparison);
  EXPECT_NE(text.find("Warning: b.json reports Gb/s: its figures are converted to MiB/s"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("higher (B/A > 1: B is faster) is better"), std::string::npos) << text;
}

// Issue 43, item 13: latency says lower is better and what its rows carry;
// an input that did not complete is flagged.
TEST(Compare, LatencySaysLowerIsBetterAndIncompleteInputsAreFlagged) {
  json lat_a = json::parse(testing::ReadTestData("read_lat.json"));
  json lat_b = lat_a;
  lat_b["outcome"] = "interrupted";
  lat_b["error"] = "interrupted by SIGINT after 2 of 23 sizes";
  auto comparison = CompareRuns(Parse("a.json", lat_a), Parse("b.json", lat_b));
  ASSERT_TRUE(comparison.ok()) << comparison.status().message();
  EXPECT_TRUE(comparison->lower_is_better);
  const std::string text = RenderComparison(*comparison);
  EXPECT_NE(text.find("lower (B/A < 1: B is faster) is better"), std::string::npos) << text;
  EXPECT_NE(text.find("t_min, t_max, stdev and percentiles"), std::string::npos) << text;
  EXPECT_EQ(text.find("an average and a peak"), std::string::npos) << text;
  EXPECT_NE(text.find("Warning: b.json: Incomplete run (interrupted)"), std::string::npos)
      << text;
}

// With distributions, the median and the tail percentiles compare too,
// each a point of its own ("2 p99"), lower being better.
TEST(Compare, LatencyDistributionsComparePercentiles) {
  json lat_a = json::parse(testing::ReadTestData("read_lat.json"));
  json lat_b = lat_a;
  lat_a["results"][0]["distribution"] = testing::LatencyDistributionJson(1600);
  lat_b["results"][0]["distribution"] = testing::LatencyDistributionJson(3200);
  auto comparison = CompareRuns(Parse("a.json", lat_a), Parse("b.json", lat_b));
  ASSERT_TRUE(comparison.ok()) << comparison.status().message();
  const auto p99 = std::find_if(comparison->points.begin(), comparison->points.end(),
                                [](const ComparePoint& point) { return point.key == "2 p99"; });
  ASSERT_NE(p99, comparison->points.end());
  ASSERT_TRUE(p99->ratio.has_value());
  EXPECT_NEAR(*p99->ratio, 2.0, 1e-9);
  // p25 is not compared; p99.9 is.
  for (const ComparePoint& point : comparison->points) EXPECT_NE(point.key, "2 p25");
  EXPECT_TRUE(std::any_of(comparison->points.begin(), comparison->points.end(),
                          [](const ComparePoint& point) { return point.key == "2 p99.9"; }));
  EXPECT_NE(RenderComparison(*comparison).find("the 99th percentile"), std::string::npos);
}

}  // namespace
}  // namespace xfer::report
