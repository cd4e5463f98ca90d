// Sysfs trees written by tests, in the kernel's layout (plain files for
// attributes, relative links for class entries and `device` links), for
// the topology reader and the doctor.
#ifndef XFER_TESTS_SUPPORT_HOST_TREES_H_
#define XFER_TESTS_SUPPORT_HOST_TREES_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

namespace xfer::testing {

// A scratch sysfs root, removed at the end of the test.
class ScratchSysfs {
 public:
  ScratchSysfs()
      : root_(std::filesystem::path(::testing::TempDir()) /
              ("host-tree-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(root_);
  }
  ~ScratchSysfs() { std::filesystem::remove_all(root_); }

  void Write(const std::string& path, const std::string& text) const {
    const std::filesystem::path full = root_ / path;
    std::filesystem::create_directories(full.parent_path());
    std::ofstream(full) << text;
  }
  // A relative link, as the kernel's are.
  void Link(const std::string& path, const std::string& target) const {
    const std::filesystem::path full = root_ / path;
    std::filesystem::create_directories(full.parent_path());
    std::filesystem::create_symlink(target, full);
  }
  std::string root() const { return root_.string(); }

 private:
  std::filesystem::path root_;
};

inline void WriteTwoSocketHostWithAGpuAndANic(const ScratchSysfs& tree) {
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
inline void AddSwitchWithGpuAndNic(const ScratchSysfs& tree) {
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


// "0000:1b:00.0" for bus 0x1b, device 0, function 0.
inline std::string PciAddress(int bus, int device = 0) {
  char text[16];
  std::snprintf(text, sizeof text, "0000:%02x:%02x.0", bus, device);
  return text;
}

// An RDMA device `name` on the PCI function at `function` (a path below
// sys/devices), its port 1 in `state` at `rate`, on `netdev` ("" for
// InfiniBand), with the class link the kernel makes.
inline void AddRdmaFunction(const ScratchSysfs& tree, const std::string& function,
                            const std::string& name, const std::string& state,
                            const std::string& rate, const std::string& netdev) {
  const std::string device = function + "/infiniband/" + name;
  tree.Write(device + "/ports/1/state", state + "\n");
  tree.Write(device + "/ports/1/phys_state", "5: LinkUp\n");
  tree.Write(device + "/ports/1/rate", rate + "\n");
  tree.Write(device + "/ports/1/link_layer", netdev.empty() ? "InfiniBand\n" : "Ethernet\n");
  if (!netdev.empty()) tree.Write(device + "/ports/1/gid_attrs/ndevs/0", netdev + "\n");
  const std::string leaf = function.substr(function.rfind('/') + 1);
  tree.Link(device + "/device", "../../../" + leaf);
  tree.Link("sys/class/infiniband/" + name, "../../" + device.substr(4));
}

// A PCI function below sys/devices at `path`, of PCI `pci_class` and
// `vendor`, on NUMA node `node`, with its sys/bus/pci/devices link.
inline void AddPciFunction(const ScratchSysfs& tree, const std::string& path,
                           const std::string& pci_class, const std::string& vendor, int node) {
  tree.Write(path + "/class", pci_class + "\n");
  tree.Write(path + "/vendor", vendor + "\n");
  tree.Write(path + "/numa_node", std::to_string(node) + "\n");
  tree.Write(path + "/current_link_speed", "32.0 GT/s PCIe\n");
  tree.Write(path + "/current_link_width", "16\n");
  const std::string leaf = path.substr(path.rfind('/') + 1);
  tree.Link("sys/bus/pci/devices/" + leaf, "../../../" + path.substr(4));
}

// An 8-GPU server: two NUMA nodes, two root complexes on each, and below
// each root complex one PCIe switch holding two GPUs and two RDMA NICs (the
// layout of an HGX-class host). Switch s (0..3) is on node s / 2 under
// pci0000:<bus s> (0x10, 0x30, 0x90, 0xb0); its GPUs are at buses bus+3 and
// bus+4, its NICs mlx5_<2s> and mlx5_<2s+1> (400 Gb/s InfiniBand, active)
// at bus+5 and bus+6. So GPU i (in PCI-address order) shares a switch with
// mlx5_<i>'s pair.
inline void WriteEightGpuServer(const ScratchSysfs& tree) {
  tree.Write("sys/devices/system/node/node0/cpulist", "0-47\n");
  tree.Write("sys/devices/system/node/node1/cpulist", "48-95\n");
  tree.Write("sys/devices/system/cpu/online", "0-95\n");
  constexpr int kBuses[] = {0x10, 0x30, 0x90, 0xb0};
  for (int s = 0; s < 4; ++s) {
    const int bus = kBuses[s];
    const int node = s / 2;
    char root[32];
    std::snprintf(root, sizeof root, "sys/devices/pci0000:%02x", bus);
    const std::string port = std::string(root) + "/" + PciAddress(bus, 1);
    const std::string up = port + "/" + PciAddress(bus + 1);
    for (int d = 0; d < 4; ++d) {
      const std::string down = up + "/" + PciAddress(bus + 2, d);
      const std::string endpoint = down + "/" + PciAddress(bus + 3 + d);
      if (d < 2) {
        AddPciFunction(tree, endpoint, "0x030200", "0x10de", node);
      } else {
        AddPciFunction(tree, endpoint, "0x020700", "0x15b3", node);
        AddRdmaFunction(tree, endpoint, "mlx5_" + std::to_string(2 * s + d - 2), "4: ACTIVE",
                        "400 Gb/sec (4X NDR)", "");
      }
    }
  }
}

// One NUMA node with three RoCE devices: a bond of two 100G ports
// (mlx5_bond_0 on bond0, 200 Gb/s), a slow 25G NIC (mlx5_2 on ens3f0), and
// one whose port is down (mlx5_3).
inline void WriteBondedAndSlowNicHost(const ScratchSysfs& tree) {
  tree.Write("sys/devices/system/node/node0/cpulist", "0-31\n");
  const std::string bond = "sys/devices/pci0000:16/" + PciAddress(0x16, 1) + "/" + PciAddress(0x17);
  AddPciFunction(tree, bond, "0x020000", "0x15b3", 0);
  AddRdmaFunction(tree, bond, "mlx5_bond_0", "4: ACTIVE", "200 Gb/sec (4X HDR)", "bond0");
  const std::string slow = "sys/devices/pci0000:3a/" + PciAddress(0x3a, 1) + "/" + PciAddress(0x3b);
  AddPciFunction(tree, slow, "0x020000", "0x15b3", 0);
  AddRdmaFunction(tree, slow, "mlx5_2", "4: ACTIVE", "25 Gb/sec (1X EDR)", "ens3f0");
  const std::string down = "sys/devices/pci0000:5d/" + PciAddress(0x5d, 1) + "/" + PciAddress(0x5e);
  AddPciFunction(tree, down, "0x020000", "0x15b3", 0);
  AddRdmaFunction(tree, down, "mlx5_3", "1: DOWN", "100 Gb/sec (4X EDR)", "ens4f0");
}

}  // namespace xfer::testing

#endif  // XFER_TESTS_SUPPORT_HOST_TREES_H_
