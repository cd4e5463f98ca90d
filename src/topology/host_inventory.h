// What the host is, for every doctor report (with or without an RDMA
// port): CPUs, memory, NUMA nodes, and the PCIe functions that move data
// (network controllers, GPUs) with their links and NUMA nodes. All of it
// from /proc and /sys under the SysfsReader's root; nothing is guessed.
#ifndef XFER_TOPOLOGY_HOST_INVENTORY_H_
#define XFER_TOPOLOGY_HOST_INVENTORY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "topology/pcie_path.h"
#include "topology/reading.h"
#include "topology/sysfs_reader.h"

namespace xfer::topology {

struct CpuInventory {
  Reading<std::string> model;   // /proc/cpuinfo "model name" (first CPU)
  Reading<std::string> online;  // /sys/devices/system/cpu/online, "0-15"
  Reading<int64_t> count;       // CPUs in `online`
};

struct MemoryInventory {
  Reading<int64_t> total_kib;      // /proc/meminfo MemTotal, KiB
  Reading<int64_t> available_kib;  // MemAvailable
};

struct NumaNode {
  int id = 0;
  Reading<std::string> cpulist;  // "0-7,16-23"
  Reading<int64_t> total_kib;    // node<N>/meminfo "Node N MemTotal"
};

// One PCI function of a class the doctor reports.
struct PciFunction {
  std::string address;  // "0000:17:00.0"
  std::string role;     // "network", "GPU"
  Reading<int64_t> vendor;
  Reading<int64_t> device_id;
  std::string vendor_name;  // "NVIDIA", ...; "" when not one the doctor names
  PciePath path;            // its link and every bridge above it; its NUMA node
};

struct HostInventory {
  CpuInventory cpu;
  MemoryInventory memory;
  // Empty when the kernel exposes no NUMA topology (then `numa_absent`
  // says so).
  std::vector<NumaNode> numa_nodes;
  std::string numa_absent;
  // Network controllers (PCI class 0x02) and display/3D controllers (0x03)
  // in address order. Ethernet NICs without RDMA show here too.
  std::vector<PciFunction> pci;
};

// The number of CPUs in a kernel CPU list ("0-3,8-11" -> 8); unknown for
// text that is no such list.
Reading<int64_t> CountCpuList(const std::string& list);

HostInventory ReadHostInventory(const SysfsReader& sysfs);

}  // namespace xfer::topology

#endif  // XFER_TOPOLOGY_HOST_INVENTORY_H_
