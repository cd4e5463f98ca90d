// Which RDMA devices serve which memory on this host: every device with its
// PCI place and port, every GPU in a stable order, and the choice of
// devices for memory on a GPU or a NUMA node, nearest tier first. Read once
// from sysfs (under a root the caller sets, as the doctor's); an override
// file corrects what sysfs gets wrong (firmware that reports no NUMA node,
// a NIC the vendor wires to a GPU another way).
//
// How the choice is made (what NCCL, UCX and Mooncake do, see
// docs/rails.md): every active device at the nearest tier to the memory;
// among those, any slower than a quarter of the fastest is dropped (UCX's
// lane rule); where several GPUs have the same devices equally near, the
// devices are dealt among them in the GPUs' PCI-address order (never a
// visible-device index, which is 0 in every process under
// CUDA_VISIBLE_DEVICES).
#ifndef XFER_TOPOLOGY_NIC_MAP_H_
#define XFER_TOPOLOGY_NIC_MAP_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "topology/sysfs_reader.h"
#include "topology/tier.h"
#include "xfer/status.h"

namespace xfer::topology {

struct RdmaNic {
  std::string name;      // "mlx5_0"
  int port = 1;          // its first ACTIVE port, else its first port
  bool active = false;   // that port is ACTIVE
  double gbps = 0;       // that port's rate, Gb/s; 0 when unknown
  std::string netdev;    // "" on InfiniBand, or when sysfs names none
  std::string pci_path;  // the PCI function's resolved sysfs path; "" for software RDMA
  int64_t numa_node = -1;  // -1: unknown
};

struct GpuPlace {
  std::string address;  // "0000:1b:00.0"
  std::string pci_path;
  int64_t numa_node = -1;
  // Named by an override file: these serve it, whatever sysfs says.
  std::vector<std::string> assigned_nics;
};

struct NicMap {
  std::vector<RdmaNic> nics;        // by name
  std::vector<GpuPlace> gpus;       // by PCI address: the stable order
  std::vector<int64_t> numa_nodes;  // ascending; empty where the kernel shows none
};

// The map of the host under `sysfs`'s root.
NicMap ReadNicMap(const SysfsReader& sysfs);

// Corrects `map` by an override document (`text`; `source` names it in
// errors):
//   {"nics": {"mlx5_3": {"numa_node": 1}},
//    "gpus": {"0000:1b:00.0": {"numa_node": 0, "nics": ["mlx5_0", "mlx5_1"]}}}
// Every key is optional. Errors (kInvalidArgument, naming `source` and the
// key): not JSON, an unknown key, a value of the wrong type, a NIC or GPU
// this host does not have.
Status ApplyNicMapOverrides(std::string_view text, std::string_view source, NicMap& map);

// The tier between a device and memory on a GPU, or on a NUMA node (-1:
// unknown, as on a host that shows no nodes).
Tier TierToGpu(const RdmaNic& nic, const GpuPlace& gpu);
Tier TierToNode(const RdmaNic& nic, int64_t node);

struct ServingNic {
  std::string nic;
  Tier tier = Tier::kUnknown;
};

// The devices that serve memory on GPU `address`, in name order: its
// assigned ones; else the active devices at its nearest tier, dealt among
// the GPUs that have the same devices at the same tier (GPU k of m takes
// the k-th of m equal shares; with fewer devices than GPUs, device k mod
// n). Empty when none is active or the GPU is not in the map.
std::vector<ServingNic> NicsForGpu(const NicMap& map, std::string_view address);

// The devices that serve host memory on NUMA node `node` (-1: unknown):
// the active devices at the nearest tier, in name order.
std::vector<ServingNic> NicsForNode(const NicMap& map, int64_t node);

// The devices a connection's `auto` rails take for host memory on NUMA
// node `node`: NicsForNode's, where their tier is known; where it is not
// (a host that shows no nodes), only those with a PCI function, which sit
// on the one node there is. Software RDMA (no PCI function, no node) is
// never near by topology: there `auto` keeps its one configured device.
std::vector<std::string> RailNicsForNode(const NicMap& map, int64_t node);

}  // namespace xfer::topology

#endif  // XFER_TOPOLOGY_NIC_MAP_H_
