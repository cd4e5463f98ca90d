// Diagnose on a host the doctor has no RDMA port to judge: it still reports
// the host (issue 27, defect 11).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "doctor/doctor_report.h"
#include "support/host_trees.h"

namespace xfer::doctor {
namespace {

using xfer::testing::AddSwitchWithGpuAndNic;
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

// The map the engine's rails follow, printed: each GPU's own switch NIC,
// each node's NICs, in text and JSON.
TEST(Diagnose, TheNicMapSaysWhichNicsServeEachGpuAndNode) {
  ScratchSysfs tree;
  xfer::testing::WriteEightGpuServer(tree);
  DoctorOptions options;
  options.sysfs_root = tree.root();
  const Result<DoctorReport> report = Diagnose(options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const std::string text = DoctorText(*report);
  EXPECT_NE(text.find("    GPU 0000:13:00.0    mlx5_0 [PIX/PXB]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    GPU 0000:b4:00.0    mlx5_7 [PIX/PXB]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    node 1 memory       mlx5_4, mlx5_5, mlx5_6, mlx5_7 [NODE]\n"),
            std::string::npos)
      << text;
  EXPECT_TRUE(report->nic_map.warnings.empty());
  const nlohmann::json map = DoctorJson(*report)["host"]["nic_map"];
  ASSERT_EQ(map["served"].size(), 10u);
  EXPECT_EQ(map["served"][3]["gpu"], "0000:34:00.0");
  EXPECT_EQ(map["served"][3]["nics"][0]["nic"], "mlx5_3");
  EXPECT_EQ(map["served"][3]["nics"][0]["tier"], "PIX/PXB");
  EXPECT_EQ(map["served"][8]["numa_node"], 0);
}

// A GPU whose only NIC sits on the other socket is warned about; a
// --nic-map file that names a device the host lacks is refused.
TEST(Diagnose, AGpuServedOnlyAcrossNodesIsWarnedAboutAndABadNicMapRefused) {
  ScratchSysfs tree;
  WriteTwoSocketHostWithAGpuAndANic(tree);
  AddSwitchWithGpuAndNic(tree);
  DoctorOptions options;
  options.sysfs_root = tree.root();
  const Result<DoctorReport> report = Diagnose(options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->nic_map.warnings.size(), 1u);
  EXPECT_TRUE(report->nic_map.warnings[0].starts_with(
      "GPU 0000:1b:00.0 is on NUMA node 0, and its nearest active RDMA device (mlx5_0) is "
      "across NUMA nodes [SYS]"))
      << report->nic_map.warnings[0];
  EXPECT_NE(DoctorText(*report).find("  warning: GPU 0000:1b:00.0 is on NUMA node 0"),
            std::string::npos);

  tree.Write("map.json", R"({"nics": {"mlx5_9": {"numa_node": 0}}})");
  options.nic_map_path = tree.root() + "/map.json";
  const Result<DoctorReport> refused = Diagnose(options);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("nics.mlx5_9 names an RDMA device this host does not have"),
            std::string::npos)
      << refused.status().ToString();
  // The file moves the NIC to node 0: the warning goes.
  tree.Write("map.json", R"({"nics": {"mlx5_0": {"numa_node": 0}}})");
  const Result<DoctorReport> corrected = Diagnose(options);
  ASSERT_TRUE(corrected.ok()) << corrected.status().ToString();
  EXPECT_TRUE(corrected->nic_map.warnings.empty());
}

}  // namespace
}  // namespace xfer::doctor
