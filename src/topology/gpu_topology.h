// Where each GPU sits relative to the host's RDMA NICs, as GPUDirect RDMA
// cares (../shared/reference/doctor.md §1, "GPU↔NIC topology"): the PCIe
// path between the two, named by its closest common point (a PCIe switch,
// a root complex, a NUMA node) with nvidia-smi topo -m's legend beside it,
// the GPU's BAR1 aperture (what a peer can map of its memory), and whether
// nvidia-peermem is loaded. All from sysfs under the SysfsReader's root.
#ifndef XFER_TOPOLOGY_GPU_TOPOLOGY_H_
#define XFER_TOPOLOGY_GPU_TOPOLOGY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/host_inventory.h"
#include "topology/reading.h"
#include "topology/sysfs_reader.h"
#include "topology/tier.h"

namespace xfer::topology {

// How far apart two PCI functions are, from their resolved sysfs paths
// ("/sys/devices/pci0000:16/0000:16:01.0/0000:17:00.0/0000:1b:00.0").
struct PcieDistance {
  // "behind one PCIe switch (0000:17:00.0)", "on one root complex
  // (pci0000:16), through its host bridge", "on NUMA node 0, across root
  // complexes", "across NUMA nodes (0 and 1)", or why it is unknown.
  std::string relation;
  // nvidia-smi topo -m's word for it: "PIX/PXB", "PHB", "NODE", "SYS";
  // "" when unknown.
  std::string legend;
  Tier tier = Tier::kUnknown;
};

// Pure. `numa_a` / `numa_b`: the functions' NUMA nodes, -1 when unknown.
PcieDistance DistanceBetween(std::string_view path_a, std::string_view path_b, int64_t numa_a,
                             int64_t numa_b);

// The path up to its last PCI function ("/sys/devices/pci0000:00/
// 0000:00:02.0/0000:01:00.0" for ".../0000:01:00.0/virtio1": a netdev's
// `device` link can point below its function); nullopt for a path through
// no PCI function (a veth, a software RDMA device on one).
std::optional<std::string> PciFunctionPath(const std::string& path);

struct NicDistance {
  std::string nic;  // the RDMA device, "mlx5_0"
  PcieDistance distance;
};

struct GpuTopology {
  std::string address;  // the GPU's PCI address
  std::string vendor_name;
  Reading<uint64_t> bar1_bytes;    // BAR1's size, from the function's resource file
  Reading<std::string> peermem;    // "loaded (version ...)" or why not
  std::vector<NicDistance> nics;   // every RDMA device with a PCI function
  std::string no_nic;              // why `nics` is empty, when it is
};

// For each GPU of `host` (PciFunction role "GPU").
std::vector<GpuTopology> ReadGpuTopology(const SysfsReader& sysfs, const HostInventory& host);

}  // namespace xfer::topology

#endif  // XFER_TOPOLOGY_GPU_TOPOLOGY_H_
