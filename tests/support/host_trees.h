// Sysfs trees written by tests, in the kernel's layout (plain files for
// attributes, relative links for class entries and `device` links), for
// the topology reader and the doctor.
#ifndef XFER_TESTS_SUPPORT_HOST_TREES_H_
#define XFER_TESTS_SUPPORT_HOST_TREES_H_

#include <gtest/gtest.h>
#include <unistd.h>

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

}  // namespace xfer::testing

#endif  // XFER_TESTS_SUPPORT_HOST_TREES_H_
