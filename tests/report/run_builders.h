// Small run documents with chosen figures, for the report tests: the same
// shapes json_report.cc and matrix_json.cc write, minus fields the reader
// ignores.
#ifndef XFER_TESTS_REPORT_RUN_BUILDERS_H_
#define XFER_TESTS_REPORT_RUN_BUILDERS_H_

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/run_document.h"

namespace xfer::report::testing {

using nlohmann::json;

// A recorded run from tests/report/testdata, as text.
inline std::string ReadTestData(const std::string& name) {
  std::ifstream in(std::string(XFER_TEST_DATA_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct BwPoint {
  uint64_t size;
  double bw_average;  // Gb/s
};

inline json BandwidthJson(const std::vector<BwPoint>& points,
                          const std::string& test = "RDMA_Write_BW_Test") {
  json rows = json::array();
  for (const BwPoint& p : points) {
    rows.push_back({{"MsgSize", p.size},
                    {"BW_peak", p.bw_average * 1.1},
                    {"BW_average", p.bw_average},
                    {"MsgRate", p.bw_average * 1e9 / 8 / static_cast<double>(p.size) / 1e6},
                    {"BW_average_bytes_per_sec", p.bw_average * 1e9 / 8}});
  }
  return {{"test_info",
           {{"test", test},
            {"transport", "tcp"},
            {"mode", "iterations"},
            {"units", {{"BW_average", "Gb/s (10^9 bit/s)"}, {"BW_peak", "Gb/s (10^9 bit/s)"}}}}},
          {"results", rows}};
}

// --timeline's record (json_report's rail_timeline): two rails over
// `samples` intervals of 100 ms, each carrying `bytes`, rail 1 going down
// at 250 ms when `lose_rail_1`.
// A latency row's "distribution" (json_report.h): `samples` split over
// three buckets around `median_ns`, and the ladder read off them.
inline json LatencyDistributionJson(uint64_t median_ns) {
  const uint64_t low = median_ns - median_ns / 16, high = median_ns * 4;
  return {{"samples", 100},
          {"dropped", 2},
          {"min", static_cast<double>(low) / 1e3},
          {"max", static_cast<double>(high) / 1e3},
          {"percentiles",
           {{"25", static_cast<double>(low) / 1e3}, {"50", static_cast<double>(median_ns) / 1e3},
            {"99", static_cast<double>(high) / 1e3}, {"99.9", static_cast<double>(high) / 1e3}}},
          {"buckets_ns",
           {{low, low + 1, 30}, {median_ns, median_ns + 16, 60}, {high, high + 64, 10}}}};
}

inline json RailTimelineJson(size_t samples, uint64_t bytes, bool lose_rail_1) {
  json rows = json::array();
  for (size_t i = 1; i <= samples; ++i) {
    const bool up = !lose_rail_1 || i * 100 < 250;
    rows.push_back({{"end_ms", i * 100}, {"bytes", {bytes, up ? bytes : 0}}, {"up", {true, up}}});
  }
  json recoveries = json::array();
  if (lose_rail_1) {
    recoveries.push_back({{"rail", 1}, {"down_ms", 250.5}, {"survivors_before_gbps", 1.0},
                          {"recovered_ms", 400}});
  }
  return {{"interval_ms", 100},
          {"start", "2026-12-07T21:17:01.067Z"},
          {"rails", {"10.0.1.1->10.0.1.2", "10.0.2.1->10.0.2.2"}},
          {"samples", rows},
          {"recoveries", recoveries}};
}

struct CellSpec {
  std::string transport;
  std::string direction;
  uint64_t block;
  std::vector<double> samples_gbps;  // empty: status "unsupported"
};

inline json MatrixJson(const std::vector<CellSpec>& specs) {
  json cells = json::array();
  std::vector<std::string> transports, directions;
  std::vector<uint64_t> blocks;
  auto add = [](auto& list, const auto& item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
  };
  for (const CellSpec& c : specs) {
    add(transports, c.transport);
    add(directions, c.direction);
    add(blocks, c.block);
    json cell{{"transport", c.transport}, {"direction", c.direction}, {"block_size", c.block},
              {"sample_gbps", c.samples_gbps}};
    if (c.samples_gbps.empty()) {
      cell["status"] = "unsupported";
      cell["reason"] = "no device memory";
      cell["median_gbps"] = cell["min_gbps"] = cell["max_gbps"] = nullptr;
    } else {
      std::vector<double> sorted = c.samples_gbps;
      std::sort(sorted.begin(), sorted.end());
      cell["status"] = "ok";
      cell["median_gbps"] = sorted[sorted.size() / 2];
      cell["min_gbps"] = sorted.front();
      cell["max_gbps"] = sorted.back();
    }
    cells.push_back(cell);
  }
  return {{"schema", {{"name", "xfer.matrix"}, {"version", 1}}},
          {"run", {{"command_line", "xfer matrix --loopback"}}},
          {"config", {{"directions", directions}, {"block_sizes", blocks}}},
          {"hosts", {{"initiator", {{"hostname", "h1"}}}, {"target", {{"hostname", "h1"}}}}},
          {"transports", transports},
          {"cells", cells}};
}

inline RunDocument Parse(const std::string& name, const json& document) {
  auto run = ParseRunDocument(name, document.dump());
  EXPECT_TRUE(run.ok()) << run.status().message();
  return run.ok() ? *run : RunDocument{};
}

}  // namespace xfer::report::testing

#endif  // XFER_TESTS_REPORT_RUN_BUILDERS_H_
