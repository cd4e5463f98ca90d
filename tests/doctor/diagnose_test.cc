// Diagnose on a host the doctor has no RDMA port to judge: it still reports
// the host (issue 27, defect 11).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "doctor/doctor_report.h"
#include "support/host_trees.h"

namespace xfer::doctor {
namespace {

using xfer::testing::ScratchSysfs;
using xfer::testing::WriteTwoSocketHostWithAGpuAndANic;

// Defect 11: a host without RDMA used to get one line and exit 1.
TEST(Diagnose, AHostWithoutRdmaGetsItsHostSectionAndTheVerdictNoRdmaPort) {
  ScratchSysfs tree;
  WriteTwoSocketHostWithAGpuAndANic(tree);
  DoctorOptions options;
  options.sysfs_root = tree.root();
  const Result<DoctorReport> report = Diagnose(options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ports.empty());
  EXPECT_EQ(report->inventory.pci.size(), 2u);
  ASSERT_EQ(report->verdicts.size(), 1u);
  EXPECT_TRUE(report->verdicts[0].line.starts_with("no RDMA port under " + tree.root() +
                                                   "/sys/class/infiniband: "))
      << report->verdicts[0].line;

  const std::string text = DoctorText(*report);
  EXPECT_NE(text.find("  CPUs         112 online (0-55,112-167), Intel(R) Xeon(R) Platinum 8480+\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  memory       2016.0 GiB total, 1920.0 GiB available\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  NUMA node 1  CPUs 112-167, 1008.0 GiB\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    0000:1b:00.0  GPU      NVIDIA 0x10de:0x2335  current 16 GT/s x16  max 32 GT/s x16  "
                      "NUMA 0\n"),
            std::string::npos)
      << text;
  const nlohmann::json json = DoctorJson(*report);
  EXPECT_EQ(json["ports"], nlohmann::json::array());
  EXPECT_EQ(json["host"]["cpu"]["count"], 112);
  EXPECT_EQ(json["host"]["pci"][1]["role"], "GPU");
  EXPECT_EQ(json["host"]["pci"][1]["pcie"]["hops"][0]["current"]["speed_gts"], 16.0);

  options.port = 2;  // -i with no RDMA device at all: still the host's report
  EXPECT_TRUE(Diagnose(options).ok());
  options.device = "mlx5_0";  // -d naming a device that is not there: an error
  EXPECT_EQ(Diagnose(options).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace xfer::doctor
