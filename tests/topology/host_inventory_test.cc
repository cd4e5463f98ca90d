// The host inventory and GPU placement, read from trees written here
// (support/host_trees.h): a two-socket host with a GPU behind a bridge, a
// NIC without RDMA, and no /sys/class/infiniband at all (issue 27, defect
// 11); then a PCIe switch with a GPU and an RDMA NIC side by side.
#include "topology/host_inventory.h"

#include <gtest/gtest.h>

#include <string>

#include "support/host_trees.h"
#include "topology/gpu_topology.h"

namespace xfer::topology {
namespace {

using xfer::testing::AddSwitchWithGpuAndNic;
using xfer::testing::ScratchSysfs;
using xfer::testing::WriteTwoSocketHostWithAGpuAndANic;

TEST(GpuTopology, DistancesAreNamedByTheClosestCommonPoint) {
  const std::string r = "/sys/devices/pci0000:16/0000:16:01.0";
  EXPECT_EQ(DistanceBetween(r + "/0000:17:00.0/0000:18:00.0/0000:1b:00.0",
                            r + "/0000:17:00.0/0000:18:04.0/0000:1c:00.0", 0, 0)
                .relation,
            "behind one PCIe switch (0000:17:00.0)");
  const PcieDistance host_bridge = DistanceBetween(
      r + "/0000:1b:00.0", "/sys/devices/pci0000:16/0000:16:02.0/0000:1c:00.0", 0, 0);
  EXPECT_EQ(host_bridge.relation, "on one root complex (pci0000:16), through its host bridge");
  EXPECT_EQ(host_bridge.legend, "PHB");
  const PcieDistance node =
      DistanceBetween(r + "/0000:1b:00.0", "/sys/devices/pci0000:30/0000:30:01.0/0000:31:00.0", 0, 0);
  EXPECT_EQ(node.relation, "on NUMA node 0, across root complexes (pci0000:16 and pci0000:30)");
  EXPECT_EQ(node.legend, "NODE");
  EXPECT_EQ(DistanceBetween(r + "/0000:1b:00.0", "/sys/devices/pci0000:a0/0000:a0:01.0/0000:a1:00.0",
                            0, 1)
                .legend,
            "SYS");
  EXPECT_EQ(DistanceBetween(r + "/0000:1b:00.0", "/sys/devices/pci0000:a0/0000:a1:00.0", -1, 1).legend,
            "NODE or SYS");
  EXPECT_EQ(DistanceBetween("/sys/devices/virtual/net/veth0", r, 0, 0).legend, "");
}

// Issue 29, §4: per GPU, the NICs by PCIe distance, BAR1 and peermem.
TEST(GpuTopology, EachGpuIsPlacedAgainstEachRdmaNic) {
  ScratchSysfs tree;
  WriteTwoSocketHostWithAGpuAndANic(tree);
  AddSwitchWithGpuAndNic(tree);
  const SysfsReader sysfs(tree.root());
  const std::vector<GpuTopology> gpus = ReadGpuTopology(sysfs, ReadHostInventory(sysfs));
  ASSERT_EQ(gpus.size(), 2u);
  const GpuTopology& near = gpus[1];
  EXPECT_EQ(near.address, "0000:a3:00.0");
  EXPECT_EQ(near.bar1_bytes.value, uint64_t{256} << 30);
  EXPECT_EQ(near.peermem.value, "loaded (version 1.1)");
  ASSERT_EQ(near.nics.size(), 1u);
  EXPECT_EQ(near.nics[0].nic, "mlx5_0");
  EXPECT_EQ(near.nics[0].distance.relation, "behind one PCIe switch (0000:a1:00.0)");
  const GpuTopology& far = gpus[0];  // 0000:1b:00.0, NUMA node 0, other root complex
  EXPECT_EQ(far.bar1_bytes.unknown_reason, "/sys/bus/pci/devices/0000:1b:00.0/resource is missing");
  ASSERT_EQ(far.nics.size(), 1u);
  EXPECT_EQ(far.nics[0].distance.relation, "across NUMA nodes (0 and 1)");
  EXPECT_EQ(far.nics[0].distance.legend, "SYS");
}

TEST(CountCpuList, CountsRangesAndSingles) {
  EXPECT_EQ(CountCpuList("0-55,112-167").value, 112);
  EXPECT_EQ(CountCpuList("0").value, 1);
  EXPECT_EQ(CountCpuList("0-1,4,6-7").value, 5);
  EXPECT_FALSE(CountCpuList("").known());
  EXPECT_FALSE(CountCpuList("3-1").known());
  EXPECT_FALSE(CountCpuList("0-x").known());
  EXPECT_FALSE(CountCpuList("0,,1").known());
}

TEST(HostInventory, ReadsCpusMemoryNumaAndTheDataMovingPciFunctions) {
  ScratchSysfs tree;
  WriteTwoSocketHostWithAGpuAndANic(tree);
  const HostInventory host = ReadHostInventory(SysfsReader(tree.root()));
  EXPECT_EQ(host.cpu.model.value, "Intel(R) Xeon(R) Platinum 8480+");
  EXPECT_EQ(host.cpu.online.value, "0-55,112-167");
  EXPECT_EQ(host.cpu.count.value, 112);
  EXPECT_EQ(host.memory.total_kib.value, 2113929216);
  EXPECT_EQ(host.memory.available_kib.value, 2013265920);
  ASSERT_EQ(host.numa_nodes.size(), 2u);
  EXPECT_EQ(host.numa_nodes[1].id, 1);
  EXPECT_EQ(host.numa_nodes[1].cpulist.value, "112-167");
  EXPECT_EQ(host.numa_nodes[1].total_kib.value, 1056964608);
  EXPECT_TRUE(host.numa_absent.empty());

  ASSERT_EQ(host.pci.size(), 2u);  // the bridge is neither network nor GPU
  const PciFunction& nic = host.pci[0];
  EXPECT_EQ(nic.address, "0000:00:03.0");
  EXPECT_EQ(nic.role, "network");
  EXPECT_EQ(nic.vendor_name, "virtio");
  EXPECT_TRUE(nic.path.hops.empty());
  EXPECT_FALSE(nic.path.numa_node.known());
  const PciFunction& gpu = host.pci[1];
  EXPECT_EQ(gpu.address, "0000:1b:00.0");
  EXPECT_EQ(gpu.role, "GPU");
  EXPECT_EQ(gpu.vendor_name, "NVIDIA");
  EXPECT_EQ(gpu.device_id.value, 0x2335);
  ASSERT_EQ(gpu.path.hops.size(), 2u);
  EXPECT_EQ(gpu.path.hops[0].current.speed_gts.value, 16.0);  // running below its 32 GT/s
  EXPECT_EQ(gpu.path.hops[0].max.speed_gts.value, 32.0);
  EXPECT_EQ(gpu.path.numa_node.value, 0);
}

TEST(HostInventory, AnEmptyRootSaysWhatIsUnknown) {
  ScratchSysfs tree;
  tree.Write("proc/.keep", "");
  const HostInventory host = ReadHostInventory(SysfsReader(tree.root()));
  EXPECT_EQ(host.cpu.model.unknown_reason, "/proc/cpuinfo is missing");
  EXPECT_FALSE(host.cpu.count.known());
  EXPECT_FALSE(host.memory.total_kib.known());
  EXPECT_TRUE(host.numa_nodes.empty());
  EXPECT_FALSE(host.numa_absent.empty());
  EXPECT_TRUE(host.pci.empty());
}

}  // namespace
}  // namespace xfer::topology
