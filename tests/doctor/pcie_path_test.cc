// The PCIe walk over the recorded trees.
#include "topology/pcie_path.h"

#include <gtest/gtest.h>

#include "doctor/path_reading.h"
#include "tree_util.h"

namespace xfer::doctor {
namespace {

using testing::Tree;

TEST(PciePath, ParsesSpeedText) {
  EXPECT_EQ(topology::ParsePcieSpeed("5.0 GT/s PCIe").value, 5.0);
  EXPECT_EQ(topology::ParsePcieSpeed("2.5 GT/s").value, 2.5);
  EXPECT_FALSE(topology::ParsePcieSpeed("Unknown").known());
}

TEST(PciePath, Seed002WalksNicThenRootPort) {
  const PathReading path = ReadPath(topology::SysfsReader(Tree("seed002_cx2_qdr_gen2_x4")), "mlx4_0", 2);
  ASSERT_EQ(path.pcie.hops.size(), 2u);
  const topology::PcieHop& nic = path.pcie.hops[0];
  EXPECT_EQ(nic.address, "0000:03:00.0");
  EXPECT_EQ(nic.current.speed_gts.value, 5.0);
  EXPECT_EQ(nic.current.width.value, 4);
  EXPECT_EQ(nic.max.width.value, 8);
  EXPECT_FALSE(nic.is_virtual());
  EXPECT_EQ(path.pcie.hops[1].address, "0000:00:1c.0");
  EXPECT_FALSE(path.pcie.numa_node.known());
}

TEST(PciePath, VethRxeHasNoPcieLink) {
  const PathReading path = ReadPath(topology::SysfsReader(Tree("veth_rxe")), "rxe0", 1);
  EXPECT_TRUE(path.pcie.hops.empty());
  EXPECT_NE(path.pcie.absent_reason.find("no PCIe link on this path"), std::string::npos) << path.pcie.absent_reason;
}

TEST(PciePath, QemuVirtioIsLabelledVirtual) {
  const PathReading path = ReadPath(topology::SysfsReader(Tree("qemu_virtio_rxe")), "rxe0", 1);
  ASSERT_FALSE(path.pcie.hops.empty());
  EXPECT_EQ(path.pcie.hops[0].virtual_label, "virtio");
  for (const topology::PcieHop& hop : path.pcie.hops) EXPECT_TRUE(hop.is_virtual()) << hop.address;
}

TEST(PciePath, NoDeviceLinkGivesTheReason) {
  const topology::PciePath pcie = topology::ReadPciePath(topology::SysfsReader(Tree("veth_rxe")), std::nullopt, "no device link");
  EXPECT_TRUE(pcie.hops.empty());
  EXPECT_EQ(pcie.absent_reason, "no device link");
}

}  // namespace
}  // namespace xfer::doctor
