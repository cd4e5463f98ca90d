// How near two things on one host are, as GPUDirect and NIC selection care:
// the tiers of nvidia-smi topo -m (and NCCL's path types), nearest first.
#ifndef XFER_TOPOLOGY_TIER_H_
#define XFER_TOPOLOGY_TIER_H_

#include <cstdint>
#include <string_view>

namespace xfer::topology {

// Ordered: a smaller tier is nearer. kUnknown ranks before kAcrossNodes: a
// device whose place the kernel does not say (no NUMA node, no PCI
// function, as software RDMA and most VMs have) may be near, one known to
// sit across nodes is not.
enum class Tier : uint8_t {
  kAssigned,         // named for it by an override file, whatever sysfs says
  kSameSwitch,       // PIX/PXB: below one PCIe switch or root port
  kSameRootComplex,  // PHB: through one host bridge
  kSameNode,         // NODE: one NUMA node, across root complexes
  kUnknown,          // sysfs does not say
  kAcrossNodes,      // SYS: across the NUMA interconnect
};

// "assigned", "PIX/PXB", "PHB", "NODE", "unknown", "SYS".
std::string_view TierName(Tier tier);

}  // namespace xfer::topology

#endif  // XFER_TOPOLOGY_TIER_H_
