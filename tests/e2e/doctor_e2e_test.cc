// `xfer doctor` as a user runs it, on the recorded sysfs trees of
// tests/doctor/testdata (no RDMA hardware needed).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "e2e/process.h"

namespace xfer::testing {
namespace {

using namespace std::chrono_literals;

const std::string kData = std::string(XFER_SOURCE_DIR) + "/tests/doctor/testdata";
const std::string kSeed002 = kData + "/sysfs/seed002_cx2_qdr_gen2_x4";
const std::string kSeed002Run = kData + "/runs/seed002_send_bw_ud.json";

TEST(DoctorE2e, SeedTreeAndRunPrintTheVerdict) {
  const ProcessResult result = RunXfer({"doctor", "--sysfs-root", kSeed002, "--run", kSeed002Run}, 30s);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("measured 1492.75 MiB/s (12.52 Gb/s) (86.8 %), bound by PCIe 2.0 x4"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("PCIe 2.0 x4 limits this port to 1.803 GB/s, below the 40 Gb/s QDR link"),
            std::string::npos)
      << result.out;
}

TEST(DoctorE2e, JsonParsesAndNamesTheBindingFactor) {
  const std::string path = ::testing::TempDir() + "/doctor-" + std::to_string(::getpid()) + ".json";
  const ProcessResult result =
      RunXfer({"doctor", "--sysfs-root", kSeed002, "--run", kSeed002Run, "--json", path}, 30s);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::ifstream in(path);
  const nlohmann::json document = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  std::remove(path.c_str());
  ASSERT_FALSE(document.is_discarded()) << "--json wrote no valid JSON";
  ASSERT_TRUE(document["ports"].is_array());
  ASSERT_FALSE(document["ports"].empty());
  bool port2 = false;
  for (const auto& port : document["ports"]) {
    EXPECT_EQ(port["ceiling"]["binding"], "PCIe 2.0 x4 link at 0000:03:00.0") << port.dump();
    port2 = true;
  }
  EXPECT_TRUE(port2);
  ASSERT_EQ(document["verdicts"].size(), 1u);
  EXPECT_NEAR(document["verdicts"][0]["fraction"].get<double>(), 0.868, 5e-4);
}

TEST(DoctorE2e, BadRunJsonExitsNonZeroNamingTheFile) {
  const std::string run = kData + "/runs/truncated.json";
  const ProcessResult result = RunXfer({"doctor", "--sysfs-root", kSeed002, "--run", run}, 30s);
  EXPECT_EQ(result.exit_code, 1) << result.out;
  EXPECT_NE(result.err.find(run), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("not valid JSON: "), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("json.exception"), std::string::npos) << result.err;
}

TEST(DoctorE2e, UnknownFlagExitsTwoNamingIt) {
  const ProcessResult result = RunXfer({"doctor", "--sysfs-root", kSeed002, "--bogus-flag"}, 30s);
  EXPECT_EQ(result.exit_code, 2) << result.out;
  EXPECT_NE(result.err.find("--bogus-flag"), std::string::npos) << result.err;
}

TEST(DoctorE2e, DashDNamingNoDeviceIsAClearError) {
  const ProcessResult result =
      RunXfer({"doctor", "--sysfs-root", kData + "/sysfs/veth_rxe", "-d", "mlx5_9"}, 30s);
  EXPECT_EQ(result.exit_code, 1) << result.out;
  EXPECT_NE(result.err.find("no RDMA device named 'mlx5_9'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("have: rxe0"), std::string::npos) << result.err;
}

// Issue 27, defect 11: on a host with no RDMA port the doctor used to print
// one line, exit 1 and write no --json. Now it reports the host and says
// there is no RDMA port, in text and in JSON, and succeeds.
TEST(DoctorE2e, AHostWithoutRdmaGetsAReportAndAJsonDocument) {
  const std::string root = ::testing::TempDir() + "/no-rdma-root-" + std::to_string(::getpid());
  const std::string path = root + ".json";
  std::filesystem::create_directories(root + "/proc");
  std::ofstream(root + "/proc/meminfo") << "MemTotal:       16384 kB\nMemAvailable:    8192 kB\n";
  const ProcessResult result = RunXfer({"doctor", "--sysfs-root", root, "--json", path}, 30s);
  std::filesystem::remove_all(root);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  EXPECT_NE(result.out.find("\nhost\n  CPUs         unknown: "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("  memory       0.0 GiB total, 0.0 GiB available\n"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("verdict\n  no RDMA port under " + root + "/sys/class/infiniband: "),
            std::string::npos)
      << result.out;
  std::ifstream in(path);
  const nlohmann::json document = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  std::remove(path.c_str());
  ASSERT_TRUE(document.is_object()) << "--json wrote no valid JSON";
  EXPECT_EQ(document["ports"], nlohmann::json::array());
  EXPECT_EQ(document["host"]["memory"]["total_kib"], 16384);
  ASSERT_EQ(document["verdicts"].size(), 1u);
  EXPECT_TRUE(document["verdicts"][0]["line"].get<std::string>().starts_with("no RDMA port under "));
}

}  // namespace
}  // namespace xfer::testing
