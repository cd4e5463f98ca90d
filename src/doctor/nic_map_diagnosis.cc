#include "doctor/nic_map_diagnosis.h"

#include <fmt/format.h>

namespace xfer::doctor {
namespace {

std::string NodeText(int64_t node) {
  return node < 0 ? "an unknown NUMA node" : fmt::format("NUMA node {}", node);
}

void Judge(const ServedMemory& memory, std::vector<std::string>& warnings) {
  const std::string what = memory.gpu.empty()
                               ? fmt::format("host memory on {}", NodeText(memory.numa_node))
                               : fmt::format("GPU {}", memory.gpu);
  if (memory.nics.empty()) {
    warnings.push_back(fmt::format("no active RDMA device serves {}", what));
    return;
  }
  if (memory.gpu.empty() || memory.nics.front().tier != topology::Tier::kAcrossNodes) return;
  warnings.push_back(fmt::format(
      "GPU {} is on {}, and its nearest active RDMA device ({}) is across NUMA nodes [SYS]: "
      "GPUDirect RDMA through it crosses the socket interconnect; give that node a NIC, or "
      "name the NIC to use in a --nic-map file",
      memory.gpu, NodeText(memory.numa_node), memory.nics.front().nic));
}

}  // namespace

NicMapDiagnosis DiagnoseNicMap(const topology::NicMap& map) {
  NicMapDiagnosis diagnosis;
  if (map.nics.empty()) return diagnosis;
  for (const topology::GpuPlace& gpu : map.gpus) {
    diagnosis.served.push_back(
        {gpu.address, gpu.numa_node, topology::NicsForGpu(map, gpu.address)});
  }
  std::vector<int64_t> nodes = map.numa_nodes;
  if (nodes.empty()) nodes.push_back(-1);
  for (int64_t node : nodes) {
    diagnosis.served.push_back({"", node, topology::NicsForNode(map, node)});
  }
  for (const ServedMemory& memory : diagnosis.served) Judge(memory, diagnosis.warnings);
  return diagnosis;
}

}  // namespace xfer::doctor
