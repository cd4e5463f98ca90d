// The --json document: layout, units, every size of a sweep kept, and the
// atomic write with its error reporting.
#include "report/json_report.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/model/latency_distribution.h"
#include "bench/model/statistics.h"
#include "report/perftest_table.h"

namespace xfer::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TestInfo WriteBwInfo(bench::BwUnits units) {
  TestInfo info;
  info.transport = "shm";
  info.qps = 2;
  info.tx_depth = 128;
  info.cq_mod = 100;
  info.units = units;
  return info;
}

// A fresh directory under the test temp dir, removed at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "xfer_json_XXXXXX");
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(JsonReport, BwSweepKeepsEverySizeWithUnits) {
  const std::vector<bench::BwResult> results = {
      {2, 4000, 4'240'875.0, 4'236'500.0, 2.118248},
      {65536, 4000, 1048576.0 * 11645.32, 1048576.0 * 11640.88, 0.186254}};
  const json doc = BwJsonReport(WriteBwInfo(bench::BwUnits::kMiBps), results);

  const json& info = doc.at("test_info");
  EXPECT_EQ(info.at("test"), "RDMA_Write_BW_Test");
  EXPECT_EQ(info.at("transport"), "shm");
  EXPECT_EQ(info.at("role"), "client");
  EXPECT_EQ(info.at("Number_of_qps"), 2);
  EXPECT_FALSE(info.contains("Connection_type"));  // a verbs QP type; shm has none
  EXPECT_EQ(info.at("TX_depth"), 128);
  EXPECT_EQ(info.at("CQ_Moderation"), 100);
  EXPECT_EQ(info.at("mode"), "iterations");
  EXPECT_EQ(info.at("units").at("BW_average"), "MiB/s (2^20 bytes/s)");
  EXPECT_EQ(info.at("units").at("BW_average_bytes_per_sec"), "bytes/s");
  EXPECT_EQ(info.at("units").at("MsgRate"), "Mpps (10^6 messages/s)");
  EXPECT_FALSE(info.contains("RX_depth"));

  const json& rows = doc.at("results");
  ASSERT_TRUE(rows.is_array());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("MsgSize"), 2);
  EXPECT_EQ(rows[1].at("MsgSize"), 65536);
  EXPECT_EQ(rows[1].at("n_iterations"), 4000);
  EXPECT_DOUBLE_EQ(rows[1].at("BW_peak").get<double>(), 11645.32);
  EXPECT_DOUBLE_EQ(rows[1].at("BW_average").get<double>(), 11640.88);
  EXPECT_DOUBLE_EQ(rows[1].at("BW_average_bytes_per_sec").get<double>(),
                   1048576.0 * 11640.88);
  EXPECT_DOUBLE_EQ(rows[1].at("MsgRate").get<double>(), 0.186254);
}

// Issue 43, item 9: a peak the loop did not measure (it leaves 0) is null,
// never a rate of 0.
TEST(JsonReport, APeakNotMeasuredIsNull) {
  const std::vector<bench::BwResult> results = {{8, 200000, 0, 1048576.0 * 30, 3.9}};
  const json doc = BwJsonReport(WriteBwInfo(bench::BwUnits::kMiBps), results);
  EXPECT_TRUE(doc["results"][0]["BW_peak"].is_null());
  EXPECT_TRUE(doc["results"][0]["BW_peak_bytes_per_sec"].is_null());
  EXPECT_DOUBLE_EQ(doc["results"][0]["BW_average"].get<double>(), 30.0);
}

TEST(JsonReport, PeerRowsAreKeptApartFromThePrintedRows) {
  const std::vector<bench::BwResult> sums = {{65536, 1000, 0, 1048576.0 * 30, 0.00048}};
  const std::vector<bench::BwResult> peer = {{65536, 1000, 0, 1048576.0 * 12, 0.00019}};
  const json doc = BwJsonReport(WriteBwInfo(bench::BwUnits::kMiBps), sums, peer);
  ASSERT_TRUE(doc.contains("peer_results"));
  EXPECT_DOUBLE_EQ(doc["peer_results"][0]["BW_average"].get<double>(), 12.0);
  EXPECT_DOUBLE_EQ(doc["results"][0]["BW_average"].get<double>(), 30.0);
  EXPECT_FALSE(BwJsonReport(WriteBwInfo(bench::BwUnits::kMiBps), sums).contains("peer_results"));
}

TEST(JsonReport, RowsCarryTheirCeilingAndFractionWhenRecorded) {
  const std::vector<bench::BwResult> results = {{4096, 1000, 0, 2e9, 0.4},
                                                {65536, 1000, 0, 3e9, 0.04}};
  const std::map<uint64_t, bench::Ceiling> ceilings = {
      {4096, {8e9, "single-core memcpy"}}, {65536, bench::Ceiling::Unknown("socket stack")}};
  const json doc = BwJsonReport(WriteBwInfo(bench::BwUnits::kMiBps), results, {}, ceilings);
  const json& rows = doc.at("results");
  EXPECT_EQ(rows[0].at("ceiling"),
            (json{{"bytes_per_sec", 8e9}, {"source", "single-core memcpy"}}));
  EXPECT_DOUBLE_EQ(rows[0].at("efficiency").get<double>(), 0.25);
  EXPECT_TRUE(rows[1].at("ceiling").at("bytes_per_sec").is_null());
  EXPECT_EQ(rows[1].at("ceiling").at("source"), "socket stack");
  EXPECT_TRUE(rows[1].at("efficiency").is_null());
  const json plain = BwJsonReport(WriteBwInfo(bench::BwUnits::kMiBps), results);
  EXPECT_FALSE(plain.at("results")[0].contains("ceiling"));
  EXPECT_FALSE(plain.at("results")[0].contains("efficiency"));
}

TEST(JsonReport, ProvenanceNamesTheCommandAndTheHost) {
  matrix::HostFingerprint host;
  host.hostname = "node7";
  const std::vector<std::string> words = {"xfer", "write_bw", "--loopback"};
  const json provenance = RunProvenanceJson(words, host);
  EXPECT_EQ(provenance.at("command_line"), (json{"xfer", "write_bw", "--loopback"}));
  EXPECT_EQ(provenance.at("fingerprint").at("hostname"), "node7");
}

TEST(JsonReport, GbpsUnitsConvertAtTenToTheNineBits) {
  const std::vector<bench::BwResult> results = {
      {2, 4000, 4'240'875.0, 4'236'500.0, 2.118248}};
  const json doc = BwJsonReport(WriteBwInfo(bench::BwUnits::kGbps), results);
  EXPECT_EQ(doc["test_info"]["units"]["BW_peak"], "Gb/s (10^9 bit/s)");
  EXPECT_DOUBLE_EQ(doc["results"][0]["BW_peak"].get<double>(), 0.033927);
  EXPECT_DOUBLE_EQ(doc["results"][0]["BW_average"].get<double>(), 0.033892);
}

TEST(JsonReport, LatencyDocuments) {
  TestInfo info;
  info.verb = bench::Verb::kSend;
  info.kind = bench::Kind::kLatency;
  info.role = bench::Role::kServer;
  info.transport = "tcp";
  info.rx_depth = 512;
  const std::vector<bench::LatResult> rows = {
      {2, 1000, 1.0, 9.0, 2.0, 2.5, 1.25, 8.0, 9.0, {}, {}, {}}};
  const json doc = LatJsonReport(info, rows);
  EXPECT_EQ(doc["test_info"]["test"], "Send_Latency_Test");
  EXPECT_FALSE(doc["test_info"].contains("CQ_Moderation"));
  EXPECT_FALSE(doc["test_info"].contains("TX_depth"));  // server
  EXPECT_EQ(doc["test_info"]["RX_depth"], 512);
  EXPECT_EQ(doc["test_info"]["units"]["percentile_99.9"], "us");
  EXPECT_EQ(doc["results"][0]["t_typical"], 2.0);
  EXPECT_EQ(doc["results"][0]["t_stdev"], 1.25);
  EXPECT_EQ(doc["results"][0]["percentile_99"], 8.0);
  EXPECT_EQ(doc["results"][0]["percentile_99.9"], 9.0);
  // A row received from the peer (read_lat's server) has no distribution.
  EXPECT_FALSE(doc["results"][0].contains("distribution"));
  // The side that took the samples records their distribution.
  std::vector<bench::LatResult> sampled = rows;
  const std::vector<uint64_t> kept = {1000, 1000, 2000, 8000};
  sampled[0].distribution = bench::DescribeLatency(kept, 1, 2);
  const json with = LatJsonReport(info, sampled)["results"][0]["distribution"];
  EXPECT_EQ(with["samples"], 4);
  EXPECT_EQ(with["dropped"], 2);
  EXPECT_EQ(with["min"], 1.0);
  EXPECT_EQ(with["max"], 8.0);
  EXPECT_EQ(with["percentiles"]["50"], 1.0);
  EXPECT_EQ(with["percentiles"]["75"], 2.0);
  EXPECT_EQ(with["percentiles"]["99.999"], 8.0);
  EXPECT_EQ(with["buckets_ns"], json::parse("[[992,1024,2],[1984,2048,1],[7936,8192,1]]"));

  info.duration_s = 10;
  const std::vector<bench::LatDurationResult> dur = {
      {2, 5000, 2.42, 413812.77}};
  const json d = LatDurationJsonReport(info, dur);
  EXPECT_EQ(d["test_info"]["mode"], "duration");
  EXPECT_EQ(d["test_info"]["units"]["tps_average"], "exchanges/s");
  EXPECT_EQ(d["results"][0]["t_avg"], 2.42);
  EXPECT_EQ(d["results"][0]["tps_average"], 413812.77);
}

// Issue 9, defect 11: jitter far below a microsecond, one outlier as t_max.
// The table keeps perftest's truncated 0.00; the file written by --json
// carries the exact standard deviation, 0.004 us.
TEST(JsonReport, LatencyFileCarriesTheExactStdev) {
  std::vector<uint64_t> deltas_ns;
  for (int i = 0; i < 50; ++i) {
    deltas_ns.push_back(1000);
    deltas_ns.push_back(1008);
  }
  deltas_ns.push_back(15950);  // t_max, the 2nd largest
  deltas_ns.push_back(20000);  // dropped with it
  std::vector<uint64_t> stamps = {0};
  for (uint64_t delta : deltas_ns) stamps.push_back(stamps.back() + delta);
  Result<bench::LatResult> result = bench::ComputeLatency(2, stamps, /*rtt_factor=*/1);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_DOUBLE_EQ(result->t_max_us, 15.95);
  EXPECT_NE(LatRow(*result).find("\t0.00   \t"), std::string::npos) << LatRow(*result);

  TestInfo info;
  info.kind = bench::Kind::kLatency;
  info.transport = "shm";
  TempDir dir;
  const fs::path path = dir.path() / "lat.json";
  const std::vector<bench::LatResult> rows = {*result};
  ASSERT_TRUE(WriteJsonFile(path.string(), LatJsonReport(info, rows)).ok());
  const double stdev = json::parse(ReadFile(path))["results"][0]["t_stdev"].get<double>();
  EXPECT_NEAR(stdev, 0.004, 0.004 * 1e-12);
}

TEST(JsonReport, WriteIsAtomicAndReadable) {
  TempDir dir;
  const fs::path path = dir.path() / "out.json";
  {
    std::ofstream old(path);
    old << "previous contents";
  }
  const std::vector<bench::BwResult> results = {{8, 10, 1.0, 2.0, 3.0}};
  const json doc = BwJsonReport(WriteBwInfo(bench::BwUnits::kMiBps), results);
  ASSERT_TRUE(WriteJsonFile(path.string(), doc).ok());

  const std::string text = ReadFile(path);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(json::parse(text), doc);
  // Only the target remains: no temporary file left beside it.
  size_t entries = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    (void)entry;
    ++entries;
  }
  EXPECT_EQ(entries, 1u);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(JsonReport, InvalidUtf8IsReplacedNotThrown) {
  TestInfo info = WriteBwInfo(bench::BwUnits::kMiBps);
  info.transport = std::string("sh\xff", 3);
  TempDir dir;
  const fs::path path = dir.path() / "utf8.json";
  ASSERT_TRUE(WriteJsonFile(path.string(), BwJsonReport(info, {})).ok());
  const json back = json::parse(ReadFile(path));
  EXPECT_EQ(back["test_info"]["transport"], "sh\xEF\xBF\xBD");  // U+FFFD
  EXPECT_TRUE(back["results"].is_array());
}

TEST(JsonReport, IoErrorsNameThePath) {
  TempDir dir;
  const std::string missing =
      (dir.path() / "no_such_dir" / "out.json").string();
  Status status = WriteJsonFile(missing, json::object());
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  EXPECT_NE(status.message().find(missing), std::string::npos)
      << status.message();

  // The target is a directory: refused before any file is made.
  const fs::path target = dir.path() / "a_directory";
  fs::create_directory(target);
  status = WriteJsonFile(target.string(), json::object());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find(target.string()), std::string::npos);
  size_t entries = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    (void)entry;
    ++entries;
  }
  EXPECT_EQ(entries, 1u);  // just the directory itself
}

}  // namespace
}  // namespace xfer::report
