// The ceiling of a run as a user sees it: --efficiency's column, the JSON's
// ceilings and provenance, and the default table left as perftest prints it.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "e2e/process.h"

namespace xfer::testing {
namespace {

using namespace std::chrono_literals;

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return nlohmann::json::parse(in);
}

TEST(EfficiencyE2e, ShmRowsShowTheMemcpyCeilingAndTheirFraction) {
  ProcessResult run = RunXfer(
      {"write_bw", "--loopback", "--transport", "shm", "-n", "200", "--efficiency"}, 60s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("MsgRate[Mpps]   Ceiling[MiB/sec]   Efficiency"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find(" %\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(" Ceiling: single-core memcpy"), std::string::npos) << run.out;
}

TEST(EfficiencyE2e, TheDefaultTableHasNoExtraColumn) {
  ProcessResult run =
      RunXfer({"write_bw", "--loopback", "--transport", "shm", "-n", "200"}, 60s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.find("Ceiling"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("MsgRate[Mpps]\n"), std::string::npos) << run.out;
}

TEST(EfficiencyE2e, JsonRecordsCeilingsAndWhereTheRunCameFrom) {
  const std::string shm = ::testing::TempDir() + "/efficiency-shm.json";
  ProcessResult run = RunXfer({"read_bw", "--loopback", "--transport", "shm", "-n", "100",
                               "-s", "4096", "--json", shm},
                              60s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json doc = ReadJson(shm);
  const nlohmann::json& row = doc.at("results").at(0);
  ASSERT_TRUE(row.at("ceiling").at("bytes_per_sec").is_number()) << row.dump();
  EXPECT_GT(row.at("ceiling").at("bytes_per_sec").get<double>(), 1e8);
  const double expected = row.at("BW_average_bytes_per_sec").get<double>() /
                          row.at("ceiling").at("bytes_per_sec").get<double>();
  EXPECT_DOUBLE_EQ(row.at("efficiency").get<double>(), expected);
  EXPECT_EQ(doc.at("command_line").at(1), "read_bw");
  EXPECT_TRUE(doc.at("fingerprint").at("hostname").is_string());
  std::remove(shm.c_str());

  const std::string tcp = ::testing::TempDir() + "/efficiency-tcp.json";
  run = RunXfer({"write_bw", "--loopback", "--transport", "tcp", "-n", "100", "--json", tcp},
                60s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json tcp_row = ReadJson(tcp).at("results").at(0);
  EXPECT_TRUE(tcp_row.at("ceiling").at("bytes_per_sec").is_null());
  EXPECT_NE(tcp_row.at("ceiling").at("source").get<std::string>().find("socket stack"),
            std::string::npos);
  EXPECT_TRUE(tcp_row.at("efficiency").is_null());
  std::remove(tcp.c_str());
}

TEST(EfficiencyE2e, LatencyTestsRefuseTheFlag) {
  ProcessResult run = RunXfer({"write_lat", "--loopback", "--efficiency"}, 30s);
  EXPECT_EQ(run.exit_code, 2) << run.out;
  EXPECT_NE(run.err.find("--efficiency"), std::string::npos) << run.err;
}

TEST(EfficiencyE2e, MatrixPrintsEachCellAgainstItsCeiling) {
  const std::string json = ::testing::TempDir() + "/efficiency-matrix.json";
  ProcessResult run = RunXfer({"matrix", "--loopback", "--quiet", "--transports", "shm",
                               "--directions", "H2rH,rH2H", "--block_sizes", "64K,1M",
                               "--transfer_size", "8M", "--loops", "2", "--efficiency",
                               "--json", json},
                              120s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find(" efficiency, % of the ceiling:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(" ceiling: single-core memcpy in blocks of the block size across 8 MiB"),
            std::string::npos)
      << run.out;
  const nlohmann::json doc = ReadJson(json);
  for (const nlohmann::json& cell : doc.at("cells")) {
    ASSERT_EQ(cell.at("status"), "ok") << cell.dump();
    EXPECT_GT(cell.at("ceiling").at("bytes_per_sec").get<double>(), 1e8);
    EXPECT_GT(cell.at("efficiency").get<double>(), 0.0);
  }
  std::remove(json.c_str());
}

}  // namespace
}  // namespace xfer::testing
