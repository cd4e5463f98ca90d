// The doctor's NIC map: for each GPU and each NUMA node, the RDMA devices
// that would serve its memory (topology/nic_map.h, the engine's own
// choice), and the placements that cost bandwidth.
#ifndef XFER_DOCTOR_NIC_MAP_DIAGNOSIS_H_
#define XFER_DOCTOR_NIC_MAP_DIAGNOSIS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "topology/nic_map.h"

namespace xfer::doctor {

struct ServedMemory {
  std::string gpu;        // the GPU's PCI address; "" for host memory
  int64_t numa_node = -1;  // the GPU's node, or the host memory's; -1: unknown
  std::vector<topology::ServingNic> nics;  // empty: nothing serves it
};

struct NicMapDiagnosis {
  // Each GPU in PCI-address order, then each NUMA node's host memory (one
  // entry with node -1 on a host that shows no nodes). Empty on a host
  // without an RDMA device.
  std::vector<ServedMemory> served;
  // A GPU served only across NUMA nodes; memory no active device serves.
  std::vector<std::string> warnings;
};

NicMapDiagnosis DiagnoseNicMap(const topology::NicMap& map);

}  // namespace xfer::doctor

#endif  // XFER_DOCTOR_NIC_MAP_DIAGNOSIS_H_
