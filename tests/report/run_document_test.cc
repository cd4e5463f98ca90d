// report/run_document.h on real --json files and on untrusted input: every
// truncation of a valid document, foreign documents and ill-typed fields end
// in an error that names the file and the problem.
#include "report/run_document.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/run_builders.h"
#include "report/run_tables.h"

namespace xfer::report {
namespace {

using nlohmann::json;
using testing::ReadTestData;

const char* const kSamples[] = {"write_bw.json", "read_lat.json", "matrix.json"};

TEST(RunDocument, ReadsRealBandwidthSweep) {
  auto run = ParseRunDocument("w.json", ReadTestData("write_bw.json"));
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->kind, RunKind::kPerftestBandwidth);
  EXPECT_EQ(run->test, "RDMA_Write_BW_Test");
  EXPECT_EQ(ShortUnit(run->bw_unit), "MiB/s");  // the sample was written with the MiB/s default
  ASSERT_EQ(run->bandwidth.size(), 23u);  // -a: 2 B .. 8 MiB
  EXPECT_EQ(run->bandwidth.front().size, 2u);
  EXPECT_EQ(run->bandwidth.back().size, 8388608u);
  EXPECT_TRUE(run->command_line.empty());  // this file predates the field
}

TEST(RunDocument, ReadsRealLatencySweep) {
  auto run = ParseRunDocument("l.json", ReadTestData("read_lat.json"));
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->kind, RunKind::kPerftestLatency);
  ASSERT_FALSE(run->latency.empty());
  EXPECT_TRUE(run->latency.front().p999_us.has_value());
}

// A latency row's distribution is read strictly: its ladder by percentile,
// its buckets ascending and apart, counting every sample.
TEST(RunDocument, ReadsALatencyDistributionAndRefusesAMalformedOne) {
  json doc = json::parse(ReadTestData("read_lat.json"));
  doc["results"][0]["distribution"] = testing::LatencyDistributionJson(1600);
  auto run = ParseRunDocument("l.json", doc.dump());
  ASSERT_TRUE(run.ok()) << run.status().message();
  const LatencyRow& row = run->latency.front();
  ASSERT_EQ(row.percentiles.size(), 4u);
  EXPECT_EQ(row.percentiles[0], (std::pair<double, double>{25, 1.5}));
  EXPECT_EQ(row.percentiles[3].first, 99.9);
  ASSERT_EQ(row.buckets.size(), 3u);
  EXPECT_EQ(row.buckets[1].from_ns, 1600u);
  EXPECT_EQ(row.buckets[1].count, 60u);
  EXPECT_TRUE(run->latency[1].buckets.empty());  // a row without one

  const std::pair<std::function<void(json&)>, const char*> bad[] = {
      {[](json& d) { d["percentiles"]["101"] = 1.0; },
       "l.json: results[0].distribution.percentiles.101: expected a percentile in (0, 100]"},
      {[](json& d) { d["percentiles"]["p99"] = 1.0; }, "expected a percentile in (0, 100]"},
      {[](json& d) { d["percentiles"]["50"] = -1; }, "percentiles.50: expected"},
      {[](json& d) { d["buckets_ns"][2][0] = 1500; },
       "results[0].distribution.buckets_ns[2]: overlaps or precedes the bucket before"},
      {[](json& d) { d["buckets_ns"][0][1] = 1000; }, "buckets_ns[0]: to_ns is not above from_ns"},
      {[](json& d) { d["buckets_ns"][1] = json::array({1600, 1616}); },
       "buckets_ns[1]: expected [from_ns, to_ns, count]"},
      {[](json& d) { d["samples"] = 99; },
       "buckets_ns: the buckets count 100 samples, not the 99 of \"samples\""},
      {[](json& d) { d["buckets_ns"][0][2] = 0; }, "buckets_ns[0][2]: expected"},
  };
  for (const auto& [spoil, message] : bad) {
    json spoilt = doc;
    spoil(spoilt["results"][0]["distribution"]);
    auto refused = ParseRunDocument("l.json", spoilt.dump());
    ASSERT_FALSE(refused.ok()) << message;
    EXPECT_NE(refused.status().message().find(message), std::string::npos)
        << refused.status().message();
  }
}

// A real write_lat --json, with its distribution.
TEST(RunDocument, ReadsARealLatencyDistribution) {
  auto run = ParseRunDocument("d.json", ReadTestData("write_lat_distribution.json"));
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->latency.size(), 1u);
  const LatencyRow& row = run->latency.front();
  ASSERT_EQ(row.percentiles.size(), 8u);  // 25 .. 99.999
  EXPECT_EQ(row.percentiles.front().first, 25);
  EXPECT_EQ(row.percentiles.back().first, 99.999);
  uint64_t counted = 0;
  for (const LatencyRow::Bucket& bucket : row.buckets) counted += bucket.count;
  EXPECT_EQ(counted, 1997u);  // -n 2000: 1999 samples, the 2 largest dropped
}

TEST(RunDocument, ReadsRealMatrix) {
  auto run = ParseRunDocument("m.json", ReadTestData("matrix.json"));
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->kind, RunKind::kMatrix);
  EXPECT_EQ(run->transports, (std::vector<std::string>{"shm", "tcp"}));
  EXPECT_EQ(run->block_sizes, (std::vector<uint64_t>{16384, 65536, 2097152}));
  // The matrix writes its argv as a list of words.
  EXPECT_NE(run->command_line.find(" matrix --loopback --transports shm,tcp"), std::string::npos)
      << run->command_line;
  EXPECT_FALSE(run->fingerprint.empty());
  size_t ok = 0;
  for (const MatrixCell& cell : run->cells) {
    if (cell.status != "ok") continue;
    ++ok;
    EXPECT_EQ(cell.samples, 3u);
    EXPECT_LE(*cell.min_gbps, *cell.median_gbps);
  }
  EXPECT_GT(ok, 0u);
}

TEST(RunDocument, ReadsTheOptionalCeilingFields) {
  json doc = json::parse(ReadTestData("write_bw.json"));
  doc["command_line"] = "xfer write_bw --loopback -a --json w.json";
  doc["fingerprint"] = {{"hostname", "h1"}, {"kernel", "6.1"}};
  doc["results"][0]["ceiling"] = {{"bytes_per_sec", 1.25e9}, {"source", "port 10 Gb/s"}};
  doc["results"][0]["efficiency"] = 0.5;
  doc["results"][1]["ceiling"] = {{"bytes_per_sec", nullptr}, {"source", "tcp: unknown"}};
  doc["results"][1]["efficiency"] = nullptr;
  auto run = ParseRunDocument("w.json", doc.dump());
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->command_line, "xfer write_bw --loopback -a --json w.json");
  ASSERT_EQ(run->fingerprint.size(), 2u);
  EXPECT_EQ(run->fingerprint[0], (std::pair<std::string, std::string>{"fingerprint.hostname", "h1"}));
  const EfficiencyInfo& first = run->bandwidth[0].efficiency;
  EXPECT_EQ(first.ceiling->bytes_per_sec, 1.25e9);
  EXPECT_EQ(first.ceiling->source, "port 10 Gb/s");
  EXPECT_EQ(first.efficiency, 0.5);
  const EfficiencyInfo& second = run->bandwidth[1].efficiency;
  ASSERT_TRUE(second.ceiling.has_value());
  EXPECT_FALSE(second.ceiling->bytes_per_sec.has_value());
  EXPECT_FALSE(second.efficiency.has_value());
}

// Issue 43, item 9: a peak that was not measured is null in the file (0 in
// files written before), and the report says so instead of showing 0.00.
TEST(RunDocument, APeakNotMeasuredIsReadAndShownAsSuch) {
  json doc = json::parse(ReadTestData("write_bw.json"));
  doc["results"][0]["BW_peak"] = nullptr;
  doc["results"][1]["BW_peak"] = 0.0;
  auto run = ParseRunDocument("w.json", doc.dump());
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_FALSE(run->bandwidth[0].bw_peak.has_value());
  EXPECT_FALSE(run->bandwidth[1].bw_peak.has_value());
  ASSERT_TRUE(run->bandwidth[2].bw_peak.has_value());
  const std::vector<RunTable> tables = RunTables(*run);
  ASSERT_FALSE(tables.empty());
  EXPECT_EQ(tables[0].rows[0][1].text, "not measured");
  EXPECT_EQ(tables[0].rows[1][1].text, "not measured");
  EXPECT_NE(tables[0].rows[2][1].text, "not measured");
  doc["results"][0].erase("BW_peak");
  EXPECT_FALSE(ParseRunDocument("w.json", doc.dump()).ok()) << "the key itself is required";
}

// Every prefix of a valid document is refused, naming the file; none is
// accepted as a shorter run.
TEST(RunDocument, EveryTruncationIsAClearError) {
  for (const char* sample : kSamples) {
    const std::string text = ReadTestData(sample);
    ASSERT_FALSE(text.empty()) << sample;
    // The last bytes are whitespace after the closing brace.
    size_t end = text.find_last_not_of(" \n\r\t");
    for (size_t length = 0; length <= end; ++length) {
      auto run = ParseRunDocument("cut.json", text.substr(0, length));
      ASSERT_FALSE(run.ok()) << sample << " cut at " << length;
      ASSERT_EQ(run.status().code(), StatusCode::kInvalidArgument);
      ASSERT_EQ(run.status().message().rfind("cut.json: ", 0), 0u) << run.status().message();
    }
  }
}

struct BadCase {
  const char* what;
  std::function<void(json&)> edit;
  const char* message;  // the whole message after "b.json: "
};

std::string Refusal(const std::string& sample, const BadCase& c) {
  json doc = json::parse(ReadTestData(sample));
  c.edit(doc);
  auto run = ParseRunDocument("b.json", doc.dump());
  if (run.ok()) return "accepted";
  return run.status().message();
}

TEST(RunDocument, IllTypedBandwidthFieldsNameThePath) {
  const BadCase cases[] = {
      {"negative size", [](json& d) { d["results"][3]["MsgSize"] = -2; },
       "results[3].MsgSize: expected a positive integer"},
      {"zero size", [](json& d) { d["results"][0]["MsgSize"] = 0; },
       "results[0].MsgSize: expected a positive integer"},
      {"fractional size", [](json& d) { d["results"][0]["MsgSize"] = 2.5; },
       "results[0].MsgSize: expected a positive integer"},
      {"size as text", [](json& d) { d["results"][1]["MsgSize"] = "4"; },
       "results[1].MsgSize: expected a positive integer"},
      {"missing BW", [](json& d) { d["results"][2].erase("BW_average"); },
       "results[2].BW_average: missing"},
      {"BW as text", [](json& d) { d["results"][2]["BW_peak"] = "fast"; },
       "results[2].BW_peak: expected a finite number >= 0, got string"},
      {"negative BW", [](json& d) { d["results"][2]["BW_average"] = -1.5; },
       "results[2].BW_average: expected a finite number >= 0, got -1.5"},
      {"null rate", [](json& d) { d["results"][2]["MsgRate"] = nullptr; },
       "results[2].MsgRate: expected a finite number >= 0, got null"},
      {"rows not array", [](json& d) { d["results"] = json::object(); },
       "results: expected an array, got object"},
      {"row not object", [](json& d) { d["results"][0] = 7; },
       "results[0]: expected an object, got number"},
      {"no rows", [](json& d) { d["results"] = json::array(); },
       "results: no rows: the run measured nothing"},
      {"duplicate size", [](json& d) { d["results"][1]["MsgSize"] = 2; },
       "results[1]: size 2 appears twice"},
      {"unknown unit", [](json& d) { d["test_info"]["units"]["BW_average"] = "furlongs"; },
       "test_info.units.BW_average: unknown unit 'furlongs' (expected 'Gb/s (10^9 bit/s)' or "
       "'MiB/s (2^20 bytes/s)')"},
      {"test not text", [](json& d) { d["test_info"]["test"] = 3; },
       "test_info.test: expected a string, got number"},
      {"unknown test", [](json& d) { d["test_info"]["test"] = "Foo_Test"; },
       "test_info.test: 'Foo_Test' is no bandwidth or latency test"},
      {"command line not text", [](json& d) { d["command_line"] = 5; },
       "command_line: expected a string, got number"},
      {"command line word not text", [](json& d) { d["command_line"] = {"xfer", 1}; },
       "command_line[1]: expected a string, got number"},
      {"fingerprint not object", [](json& d) { d["fingerprint"] = "h1"; },
       "fingerprint: expected an object, got string"},
      {"ceiling not object", [](json& d) { d["results"][4]["ceiling"] = 5; },
       "results[4].ceiling: expected an object, got number"},
      {"ceiling as text", [](json& d) { d["results"][4]["ceiling"] = {{"bytes_per_sec", "1e9"}}; },
       "results[4].ceiling.bytes_per_sec: expected a finite number >= 0, got string"},
      {"negative efficiency", [](json& d) { d["results"][4]["efficiency"] = -0.1; },
       "results[4].efficiency: expected a finite number >= 0, got -0.1"},
  };
  for (const BadCase& c : cases) {
    EXPECT_EQ(Refusal("write_bw.json", c), std::string("b.json: ") + c.message) << c.what;
  }
}

TEST(RunDocument, IllTypedLatencyAndMatrixFieldsNameThePath) {
  const BadCase latency[] = {
      {"missing p99", [](json& d) { d["results"][0].erase("percentile_99"); },
       "results[0].percentile_99: missing"},
      {"bool t_min", [](json& d) { d["results"][1]["t_min"] = true; },
       "results[1].t_min: expected a finite number >= 0, got boolean"},
  };
  for (const BadCase& c : latency) {
    EXPECT_EQ(Refusal("read_lat.json", c), std::string("b.json: ") + c.message) << c.what;
  }
  const BadCase matrix[] = {
      {"negative block", [](json& d) { d["cells"][0]["block_size"] = -16384; },
       "cells[0].block_size: expected a positive integer"},
      {"ok without median", [](json& d) {
         for (auto& cell : d["cells"]) if (cell["status"] == "ok") { cell["median_gbps"] = nullptr; break; }
       }, nullptr},
      {"cells not array", [](json& d) { d["cells"] = "none"; },
       "cells: expected an array, got string"},
      {"sample as text", [](json& d) { d["cells"][0]["sample_gbps"] = {"x"}; },
       "cells[0].sample_gbps[0]: expected a finite number >= 0, got string"},
      {"block list", [](json& d) { d["config"]["block_sizes"][1] = "64K"; },
       "config.block_sizes[1]: expected a positive integer"},
      {"foreign schema", [](json& d) { d["schema"]["name"] = "nixlbench"; },
       "schema.name: unknown schema 'nixlbench' (expected xfer.matrix or xfer.cluster)"},
      {"duplicate cell", [](json& d) { d["cells"][1] = d["cells"][0]; }, nullptr},
  };
  for (const BadCase& c : matrix) {
    const std::string message = Refusal("matrix.json", c);
    if (c.message != nullptr) {
      EXPECT_EQ(message, std::string("b.json: ") + c.message) << c.what;
    } else {
      EXPECT_NE(message, "accepted") << c.what;
      EXPECT_EQ(message.rfind("b.json: cells[", 0), 0u) << c.what << ": " << message;
    }
  }
}

// Issue 27, defect 5: the file of an interrupted matrix holds cells that
// did not run; every command reads what xfer matrix writes, and shows them
// as such. A status xfer never writes is still refused.
TEST(RunDocument, AnInterruptedMatrixsNotRunCellsAreRead) {
  json document = json::parse(ReadTestData("matrix.json"));
  document["run"]["outcome"] = "interrupted";
  size_t not_run = 0;
  for (json& cell : document["cells"]) {
    if (cell["status"] != "ok" || not_run == 2) continue;
    cell["status"] = "not run";
    cell["median_gbps"] = cell["min_gbps"] = cell["max_gbps"] = nullptr;
    cell["sample_gbps"] = json::array();
    ++not_run;
  }
  ASSERT_EQ(not_run, 2u);
  auto run = ParseRunDocument("interrupted.json", document.dump());
  ASSERT_TRUE(run.ok()) << run.status().message();
  size_t shown = 0;
  for (const MatrixCell& cell : run->cells) shown += CellStatusText(cell) == "not run" ? 1u : 0u;
  EXPECT_EQ(shown, 2u);

  document["cells"][0]["status"] = "pending";
  auto refused = ParseRunDocument("bogus.json", document.dump());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "bogus.json: cells[0].status: 'pending' is not ok, unsupported, failed or not run");
}

// Issue 27, defect 4: a perftest document says how its run ended, and a
// report says when only part of it finished.
TEST(RunDocument, ReadsHowTheRunEnded) {
  json document = json::parse(ReadTestData("write_bw.json"));
  auto unsaid = ParseRunDocument("old.json", document.dump());
  ASSERT_TRUE(unsaid.ok()) << unsaid.status().message();
  EXPECT_EQ(unsaid->outcome, "");  // this file predates the field
  EXPECT_EQ(IncompleteNote(*unsaid), "");

  document["outcome"] = "interrupted";
  document["error"] = "interrupted by SIGINT after 3 of 23 sizes";
  auto interrupted = ParseRunDocument("cut.json", document.dump());
  ASSERT_TRUE(interrupted.ok()) << interrupted.status().message();
  EXPECT_EQ(interrupted->outcome, "interrupted");
  EXPECT_EQ(IncompleteNote(*interrupted),
            "Incomplete run (interrupted): interrupted by SIGINT after 3 of 23 sizes; only what "
            "finished is shown.");

  document["outcome"] = "complete";
  document["error"] = nullptr;
  auto complete = ParseRunDocument("whole.json", document.dump());
  ASSERT_TRUE(complete.ok()) << complete.status().message();
  EXPECT_EQ(IncompleteNote(*complete), "");

  document["outcome"] = "partly";
  auto refused = ParseRunDocument("bogus.json", document.dump());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "bogus.json: outcome: 'partly' is not complete, failed, interrupted or running");
  document["outcome"] = 3;
  EXPECT_FALSE(ParseRunDocument("typed.json", document.dump()).ok());

  json matrix = json::parse(ReadTestData("matrix.json"));
  matrix["run"]["outcome"] = "failed";
  matrix["run"]["error"] = "target lost";
  auto failed = ParseRunDocument("m.json", matrix.dump());
  ASSERT_TRUE(failed.ok()) << failed.status().message();
  EXPECT_EQ(IncompleteNote(*failed),
            "Incomplete run (failed): target lost; only what finished is shown.");
}

TEST(RunDocument, ForeignAndMalformedDocumentsAreRefused) {
  const std::pair<const char*, const char*> cases[] = {
      {"[1, 2, 3]", "b.json: expected a JSON object at the top, got array"},
      {"\"text\"", "b.json: expected a JSON object at the top, got string"},
      {"{}",
       "b.json: not an xfer run: expected a perftest --json document (test_info, results) or an "
       "xfer matrix --json document (schema xfer.matrix)"},
      {R"({"benchmark": "nixlbench", "results": []})",
       "b.json: not an xfer run: expected a perftest --json document (test_info, results) or an "
       "xfer matrix --json document (schema xfer.matrix)"},
      {R"({"test_info": 1})", "b.json: test_info: expected an object, got number"},
      {R"({"test_info": {"test": "RDMA_Write_BW_Test"}})", "b.json: test_info.units: missing"},
      {R"({"schema": {"name": "xfer.matrix"}})", "b.json: run: missing"},
      {R"({"schema": []})", "b.json: schema: expected an object, got array"},
  };
  for (const auto& [text, message] : cases) {
    auto run = ParseRunDocument("b.json", text);
    ASSERT_FALSE(run.ok()) << text;
    EXPECT_EQ(run.status().message(), message);
  }
  for (const char* text : {"", "NaN", "{\"test_info\": NaN}", "{\"a\": 1,}", "\x01\x02"}) {
    auto run = ParseRunDocument("b.json", text);
    ASSERT_FALSE(run.ok()) << text;
    EXPECT_EQ(run.status().message().rfind("b.json: not valid JSON: ", 0), 0u)
        << run.status().message();
  }
}

// A real run over two tcp rails with --timeline 100 (write_bw --loopback
// --transport tcp --rails 2 -s 64K -D 1): its record is read whole.
TEST(RunDocument, ReadsARealRailTimeline) {
  auto run = ParseRunDocument("write_bw_rails_timeline.json",
                              ReadTestData("write_bw_rails_timeline.json"));
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_TRUE(run->rail_timeline.has_value());
  EXPECT_EQ(run->rail_timeline->interval_ms, 100u);
  EXPECT_EQ(run->rail_timeline->rails,
            (std::vector<std::string>{"127.0.0.1->127.0.0.1", "127.0.0.1->127.0.0.1"}));
  EXPECT_EQ(run->rail_timeline->samples.size(), 10u);
  EXPECT_EQ(run->rail_timeline->samples[0].end_ms, 100u);
  EXPECT_TRUE(run->rail_timeline->losses.empty());
}

// --timeline's record rides along a bandwidth run; what is malformed in it
// is refused naming where.
TEST(RunDocument, ReadsARailTimelineAndRefusesAMalformedOne) {
  json doc = testing::BandwidthJson({{1 << 20, 1.5}});
  doc["rail_timeline"] = testing::RailTimelineJson(5, 12'500'000, true);
  auto run = ParseRunDocument("t.json", doc.dump());
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_TRUE(run->rail_timeline.has_value());
  EXPECT_EQ(run->rail_timeline->interval_ms, 100u);
  EXPECT_EQ(run->rail_timeline->rails.size(), 2u);
  ASSERT_EQ(run->rail_timeline->samples.size(), 5u);
  EXPECT_EQ(run->rail_timeline->samples[4].end_ms, 500u);
  EXPECT_EQ(run->rail_timeline->samples[4].bytes, (std::vector<uint64_t>{12'500'000, 0}));
  ASSERT_EQ(run->rail_timeline->losses.size(), 1u);
  EXPECT_EQ(run->rail_timeline->losses[0].rail, 1u);
  EXPECT_DOUBLE_EQ(run->rail_timeline->losses[0].down_ms, 250.5);
  EXPECT_FALSE(run->rail_timeline->losses[0].up_ms.has_value());
  json returned = doc;
  returned["rail_timeline"]["recoveries"][0]["up_ms"] = 420.0;
  auto back = ParseRunDocument("t.json", returned.dump());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->rail_timeline->losses[0].up_ms, 420.0);

  const std::pair<std::function<void(json&)>, const char*> bad[] = {
      {[](json& t) { t["samples"][1]["bytes"] = {1}; },
       "t.json: rail_timeline.samples[1].bytes: expected 2 figures, one per rail"},
      {[](json& t) { t["samples"][2]["end_ms"] = 200; },
       "t.json: rail_timeline.samples[2].end_ms: not after the sample before"},
      {[](json& t) { t["samples"][0]["bytes"][0] = -5; },
       "t.json: rail_timeline.samples[0].bytes[0]: expected"},
      {[](json& t) { t["recoveries"][0]["rail"] = 2; },
       "t.json: rail_timeline.recoveries[0].rail: no such rail"},
      {[](json& t) { t["recoveries"][0]["down_ms"] = "soon"; },
       "t.json: rail_timeline.recoveries[0].down_ms: expected a number of milliseconds"},
      {[](json& t) { t["recoveries"][0]["up_ms"] = 100; },
       "t.json: rail_timeline.recoveries[0].up_ms: expected null or a number of milliseconds, "
       "not before down_ms"},
      {[](json& t) { t["rails"] = json::array(); },
       "t.json: rail_timeline.rails: expected 1 to 16 rails"},
      {[](json& t) { t.erase("interval_ms"); }, "t.json: rail_timeline.interval_ms: missing"},
  };
  for (const auto& [spoil, message] : bad) {
    json spoilt = doc;
    spoil(spoilt["rail_timeline"]);
    auto refused = ParseRunDocument("t.json", spoilt.dump());
    ASSERT_FALSE(refused.ok()) << message;
    EXPECT_EQ(refused.status().message().rfind(message, 0), 0u) << refused.status().message();
  }
}

// 1e999 parses as infinity; a figure must be finite.
TEST(RunDocument, OverflowingNumbersAreRefused) {
  json bad = json::parse(ReadTestData("write_bw.json"));
  bad["results"][0]["BW_average"] = 0;
  std::string text = bad.dump();
  const size_t zero = text.find("\"BW_average\":0");
  ASSERT_NE(zero, std::string::npos);
  text.replace(zero, 14, "\"BW_average\":1e999");
  auto run = ParseRunDocument("b.json", text);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message().rfind("b.json: ", 0), 0u) << run.status().message();
}

TEST(RunDocument, MissingFileNamesThePath) {
  auto run = LoadRunDocument("/nonexistent/x.json");
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message().rfind("/nonexistent/x.json: cannot read", 0), 0u);
}

}  // namespace
}  // namespace xfer::report
