// The host section every doctor report has, read from a tree written here:
// a two-socket host with a GPU behind a bridge, a NIC without RDMA, and no
// /sys/class/infiniband at all (issue 27, defect 11).
#include "doctor/host_inventory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "doctor/doctor_report.h"
#include "doctor/gpu_topology.h"

namespace xfer::doctor {
namespace {

namespace fs = std::filesystem;

// A scratch sysfs root, removed at the end of the test.
class HostTree {
 public:
  HostTree() : root_(fs::path(::testing::TempDir()) / ("host-tree-" + std::to_string(::getpid()))) {
    fs::remove_all(root_);
  }
  ~HostTree() { fs::remove_all(root_); }

  void Write(const std::string& path, const std::string& text) const {
    const fs::path full = root_ / path;
    fs::create_directories(full.parent_path());
    std::ofstream(full) << text;
  }
  // A relative link, as the kernel's are.
  void Link(const std::string& path, const std::string& target) const {
    const fs::path full = root_ / path;
    fs::create_directories(full.parent_path());
    fs::create_symlink(target, full);
  }
  std::string root() const { return root_.string(); }

 private:
  fs::path root_;
};

void WriteTwoSocketHostWithAGpuAndANic(const HostTree& tree) {
  tree.Write("proc/cpuinfo",
             "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n"
             "\nprocessor\t: 1\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n");
  tree.Write("proc/meminfo", "MemTotal:       2113929216 kB\nMemFree:        2000000000 kB\n"
                             "MemAvailable:   2013265920 kB\nHugepagesize:       2048 kB\n");
  tree.Write("sys/devices/system/cpu/online", "0-55,112-167\n");
  tree.Write("sys/devices/system/node/node0/cpulist", "0-55\n");
  tree.Write("sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:       1056964608 kB\n");
  tree.Write("sys/devices/system/node/node1/cpulist", "112-167\n");
  tree.Write("sys/devices/system/node/node1/meminfo", "Node 1 MemTotal:       1056964608 kB\n");
  tree.Write("sys/devices/system/node/possible", "0-1\n");
  // The GPU, 0000:1b:00.0, below the root port 0000:16:01.0.
  const std::string port = "sys/devices/pci0000:16/0000:16:01.0";
  for (const auto& [file, text] : {std::pair{"current_link_speed", "32.0 GT/s PCIe"},
                                   {"current_link_width", "16"},
                                   {"max_link_speed", "32.0 GT/s PCIe"},
                                   {"max_link_width", "16"},
                                   {"vendor", "0x8086"},
                                   {"device", "0x352a"},
                                   {"class", "0x060400"}}) {
    tree.Write(port + "/" + file, std::string(text) + "\n");
  }
  const std::string gpu = port + "/0000:1b:00.0";
  for (const auto& [file, text] : {std::pair{"current_link_speed", "16.0 GT/s PCIe"},
                                   {"current_link_width", "16"},
                                   {"max_link_speed", "32.0 GT/s PCIe"},
                                   {"max_link_width", "16"},
                                   {"vendor", "0x10de"},
                                   {"device", "0x2335"},
                                   {"class", "0x030200"},
                                   {"numa_node", "0"}}) {
    tree.Write(gpu + "/" + file, std::string(text) + "\n");
  }
  tree.Link("sys/bus/pci/devices/0000:1b:00.0", "../../../devices/pci0000:16/0000:16:01.0/0000:1b:00.0");
  tree.Link("sys/bus/pci/devices/0000:16:01.0", "../../../devices/pci0000:16/0000:16:01.0");
  // An Ethernet NIC on the root complex: no link registers, NUMA unknown.
  const std::string nic = "sys/devices/pci0000:00/0000:00:03.0";
  tree.Write(nic + "/vendor", "0x1af4\n");
  tree.Write(nic + "/device", "0x1041\n");
  tree.Write(nic + "/class", "0x020000\n");
  tree.Write(nic + "/numa_node", "-1\n");
  tree.Link("sys/bus/pci/devices/0000:00:03.0", "../../../devices/pci0000:00/0000:00:03.0");
}

// A second socket's root complex with a PCIe switch holding a GPU and an
// RDMA NIC side by side, the GPUDirect layout; and nvidia-peermem loaded.
void AddSwitchWithGpuAndNic(const HostTree& tree) {
  const std::string root = "sys/devices/pci0000:a0/0000:a0:01.0";
  const std::string up = root + "/0000:a1:00.0";
  const std::string gpu = up + "/0000:a2:00.0/0000:a3:00.0";
  const std::string nic = up + "/0000:a2:04.0/0000:a4:00.0";
  for (const std::string& bridge : {root, up, up + "/0000:a2:00.0", up + "/0000:a2:04.0"}) {
    tree.Write(bridge + "/class", "0x060400\n");
    tree.Write(bridge + "/current_link_speed", "32.0 GT/s PCIe\n");
    tree.Write(bridge + "/current_link_width", "16\n");
  }
  tree.Write(gpu + "/class", "0x030200\n");
  tree.Write(gpu + "/vendor", "0x10de\n");
  tree.Write(gpu + "/device", "0x2335\n");
  tree.Write(gpu + "/numa_node", "1\n");
  tree.Write(gpu + "/current_link_speed", "32.0 GT/s PCIe\n");
  tree.Write(gpu + "/current_link_width", "16\n");
  // BAR0 16 MiB, BAR1 256 GiB (64-bit: the next line is empty), BAR3 32 MiB.
  tree.Write(gpu + "/resource",
             "0x00000000e2000000 0x00000000e2ffffff 0x0000000000040200\n"
             "0x0000200000000000 0x0000203fffffffff 0x000000000014220c\n"
             "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
             "0x0000204000000000 0x0000204001ffffff 0x000000000014220c\n");
  tree.Link("sys/bus/pci/devices/0000:a3:00.0",
            "../../../devices/pci0000:a0/0000:a0:01.0/0000:a1:00.0/0000:a2:00.0/0000:a3:00.0");
  tree.Write(nic + "/class", "0x020700\n");
  tree.Write(nic + "/vendor", "0x15b3\n");
  tree.Write(nic + "/numa_node", "1\n");
  tree.Write(nic + "/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
  tree.Link("sys/class/infiniband/mlx5_0",
            "../../devices/pci0000:a0/0000:a0:01.0/0000:a1:00.0/0000:a2:04.0/0000:a4:00.0/"
            "infiniband/mlx5_0");
  tree.Link(nic + "/infiniband/mlx5_0/device", "../../../0000:a4:00.0");
  tree.Write("sys/module/nvidia_peermem/version", "1.1\n");
}

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
  HostTree tree;
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
  HostTree tree;
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
  HostTree tree;
  tree.Write("proc/.keep", "");
  const HostInventory host = ReadHostInventory(SysfsReader(tree.root()));
  EXPECT_EQ(host.cpu.model.unknown_reason, "/proc/cpuinfo is missing");
  EXPECT_FALSE(host.cpu.count.known());
  EXPECT_FALSE(host.memory.total_kib.known());
  EXPECT_TRUE(host.numa_nodes.empty());
  EXPECT_FALSE(host.numa_absent.empty());
  EXPECT_TRUE(host.pci.empty());
}

// Defect 11: a host without RDMA used to get one line and exit 1.
TEST(Diagnose, AHostWithoutRdmaGetsItsHostSectionAndTheVerdictNoRdmaPort) {
  HostTree tree;
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
