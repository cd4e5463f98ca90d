#include "topology/nic_map.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "topology/gpu_topology.h"
#include "topology/host_inventory.h"
#include "topology/rdma_port.h"

namespace xfer::topology {
namespace {

using Json = nlohmann::json;

// UCX drops lanes slower than this share of the fastest: striping over one
// would hold the others back to its pace.
constexpr double kSlowestShare = 0.25;

RdmaNic ReadNic(const SysfsReader& sysfs, const std::string& name) {
  RdmaNic nic;
  nic.name = name;
  const std::vector<int> ports = ListRdmaPorts(sysfs, name);
  std::optional<RdmaPortReading> chosen;
  for (int port : ports) {
    RdmaPortReading reading = ReadRdmaPort(sysfs, name, port);
    const bool active = reading.state.known() && reading.state.value->ends_with("ACTIVE");
    if (!chosen || (active && !nic.active)) {
      chosen = std::move(reading);
      nic.active = active;
    }
    if (nic.active) break;
  }
  if (chosen) {
    nic.port = chosen->port;
    if (chosen->rate.known()) nic.gbps = chosen->rate.value->gbps;
    if (chosen->netdev.known()) nic.netdev = *chosen->netdev.value;
  }
  const auto resolved = sysfs.Resolve(fmt::format("/sys/class/infiniband/{}/device", name));
  if (const auto function = resolved ? PciFunctionPath(*resolved) : std::nullopt) {
    nic.pci_path = *function;
    const Reading<int64_t> numa = sysfs.ReadInteger(*function + "/numa_node");
    if (numa.known()) nic.numa_node = *numa.value;
  }
  return nic;
}

// The active devices at the nearest tier `tier_of` gives, with the ones
// slower than a quarter of the fastest among them dropped.
template <typename TierOf>
std::vector<ServingNic> Nearest(const NicMap& map, TierOf tier_of) {
  std::vector<ServingNic> nearest;
  double fastest = 0;
  for (const RdmaNic& nic : map.nics) {
    if (!nic.active) continue;
    const Tier tier = tier_of(nic);
    if (!nearest.empty() && tier > nearest.front().tier) continue;
    if (!nearest.empty() && tier < nearest.front().tier) {
      nearest.clear();
      fastest = 0;
    }
    nearest.push_back({nic.name, tier});
    fastest = std::max(fastest, nic.gbps);
  }
  std::erase_if(nearest, [&](const ServingNic& serving) {
    const auto nic = std::find_if(map.nics.begin(), map.nics.end(),
                                  [&](const RdmaNic& n) { return n.name == serving.nic; });
    return nic->gbps > 0 && nic->gbps < kSlowestShare * fastest;
  });
  return nearest;
}

bool SameNics(const std::vector<ServingNic>& a, const std::vector<ServingNic>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const ServingNic& x, const ServingNic& y) {
                      return x.nic == y.nic && x.tier == y.tier;
                    });
}

std::vector<ServingNic> NearestToGpu(const NicMap& map, const GpuPlace& gpu) {
  return Nearest(map, [&](const RdmaNic& nic) { return TierToGpu(nic, gpu); });
}

// --- the override file ---

Status Refuse(std::string_view source, const std::string& why) {
  return InvalidArgument(fmt::format("{}: {}", source, why));
}

Result<int64_t> NodeValue(const Json& value, std::string_view source, const std::string& where) {
  if (!value.is_number_integer() || value.get<int64_t>() < -1) {
    return Refuse(source, fmt::format("{}.numa_node must be a NUMA node number (or -1), not {}",
                                      where, value.dump()));
  }
  return value.get<int64_t>();
}

Status ApplyNic(const Json& body, const std::string& name, std::string_view source,
                NicMap& map) {
  const std::string where = "nics." + name;
  auto nic = std::find_if(map.nics.begin(), map.nics.end(),
                          [&](const RdmaNic& n) { return n.name == name; });
  if (nic == map.nics.end()) {
    return Refuse(source, fmt::format("{} names an RDMA device this host does not have", where));
  }
  if (!body.is_object()) return Refuse(source, where + " must be an object");
  for (const auto& [key, value] : body.items()) {
    if (key != "numa_node") {
      return Refuse(source, fmt::format("{}: unknown key '{}' (known: numa_node)", where, key));
    }
    auto node = NodeValue(value, source, where);
    if (!node.ok()) return node.status();
    nic->numa_node = *node;
  }
  return Status::Ok();
}

Status ApplyGpu(const Json& body, const std::string& address, std::string_view source,
                NicMap& map) {
  const std::string where = "gpus." + address;
  auto gpu = std::find_if(map.gpus.begin(), map.gpus.end(),
                          [&](const GpuPlace& g) { return g.address == address; });
  if (gpu == map.gpus.end()) {
    return Refuse(source, fmt::format("{} names a GPU this host does not have", where));
  }
  if (!body.is_object()) return Refuse(source, where + " must be an object");
  for (const auto& [key, value] : body.items()) {
    if (key == "numa_node") {
      auto node = NodeValue(value, source, where);
      if (!node.ok()) return node.status();
      gpu->numa_node = *node;
    } else if (key == "nics") {
      if (!value.is_array() || value.empty()) {
        return Refuse(source, where + ".nics must be a non-empty list of RDMA device names");
      }
      std::vector<std::string> names;
      for (const Json& name : value) {
        const bool known =
            name.is_string() &&
            std::any_of(map.nics.begin(), map.nics.end(),
                        [&](const RdmaNic& n) { return n.name == name.get<std::string>(); });
        if (!known) {
          return Refuse(source, fmt::format("{}.nics: {} is not an RDMA device of this host",
                                            where, name.dump()));
        }
        names.push_back(name.get<std::string>());
      }
      std::sort(names.begin(), names.end());
      gpu->assigned_nics = std::move(names);
    } else {
      return Refuse(source,
                    fmt::format("{}: unknown key '{}' (known: numa_node, nics)", where, key));
    }
  }
  return Status::Ok();
}

}  // namespace

NicMap ReadNicMap(const SysfsReader& sysfs) {
  NicMap map;
  for (const std::string& name : ListRdmaDevices(sysfs)) map.nics.push_back(ReadNic(sysfs, name));
  const HostInventory host = ReadHostInventory(sysfs);
  for (const NumaNode& node : host.numa_nodes) map.numa_nodes.push_back(node.id);
  for (const PciFunction& function : host.pci) {
    if (function.role != "GPU") continue;
    GpuPlace gpu;
    gpu.address = function.address;
    const auto path = sysfs.Resolve(fmt::format("/sys/bus/pci/devices/{}", function.address));
    gpu.pci_path = path.value_or("");
    if (function.path.numa_node.known()) gpu.numa_node = *function.path.numa_node.value;
    map.gpus.push_back(std::move(gpu));
  }
  std::sort(map.gpus.begin(), map.gpus.end(),
            [](const GpuPlace& a, const GpuPlace& b) { return a.address < b.address; });
  return map;
}

Status ApplyNicMapOverrides(std::string_view text, std::string_view source, NicMap& map) {
  const Json document = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) return Refuse(source, "is not JSON");
  if (!document.is_object()) return Refuse(source, "must be a JSON object");
  for (const auto& [section, entries] : document.items()) {
    if (section != "nics" && section != "gpus") {
      return Refuse(source, fmt::format("unknown key '{}' (known: nics, gpus)", section));
    }
    if (!entries.is_object()) return Refuse(source, section + " must be an object");
    for (const auto& [name, body] : entries.items()) {
      Status applied = section == "nics" ? ApplyNic(body, name, source, map)
                                         : ApplyGpu(body, name, source, map);
      XFER_RETURN_IF_ERROR(applied);
    }
  }
  return Status::Ok();
}

Tier TierToGpu(const RdmaNic& nic, const GpuPlace& gpu) {
  if (std::find(gpu.assigned_nics.begin(), gpu.assigned_nics.end(), nic.name) !=
      gpu.assigned_nics.end()) {
    return Tier::kAssigned;
  }
  if (nic.pci_path.empty() || gpu.pci_path.empty()) return TierToNode(nic, gpu.numa_node);
  return DistanceBetween(gpu.pci_path, nic.pci_path, gpu.numa_node, nic.numa_node).tier;
}

Tier TierToNode(const RdmaNic& nic, int64_t node) {
  if (node < 0 || nic.numa_node < 0) return Tier::kUnknown;
  return nic.numa_node == node ? Tier::kSameNode : Tier::kAcrossNodes;
}

std::vector<ServingNic> NicsForGpu(const NicMap& map, std::string_view address) {
  const auto gpu = std::find_if(map.gpus.begin(), map.gpus.end(),
                                [&](const GpuPlace& g) { return g.address == address; });
  if (gpu == map.gpus.end()) return {};
  if (!gpu->assigned_nics.empty()) {
    std::vector<ServingNic> assigned;
    for (const std::string& name : gpu->assigned_nics) assigned.push_back({name, Tier::kAssigned});
    return assigned;
  }
  std::vector<ServingNic> nearest = NearestToGpu(map, *gpu);
  if (nearest.empty()) return nearest;
  // The GPUs that have these very devices at this very tier, in address
  // order (map.gpus is sorted), and this one's place among them.
  size_t sharing = 0;
  size_t index = 0;
  for (const GpuPlace& other : map.gpus) {
    if (!other.assigned_nics.empty()) continue;
    if (&other == &*gpu) index = sharing;
    if (&other == &*gpu || SameNics(NearestToGpu(map, other), nearest)) ++sharing;
  }
  const size_t n = nearest.size();
  if (n < sharing) return {nearest[index % n]};
  const size_t begin = index * n / sharing;
  const size_t end = (index + 1) * n / sharing;
  return {nearest.begin() + static_cast<std::ptrdiff_t>(begin),
          nearest.begin() + static_cast<std::ptrdiff_t>(end)};
}

std::vector<ServingNic> NicsForNode(const NicMap& map, int64_t node) {
  return Nearest(map, [&](const RdmaNic& nic) { return TierToNode(nic, node); });
}

std::vector<std::string> RailNicsForNode(const NicMap& map, int64_t node) {
  std::vector<std::string> names;
  for (const ServingNic& serving : NicsForNode(map, node)) {
    if (serving.tier == Tier::kUnknown) {
      const auto nic = std::find_if(map.nics.begin(), map.nics.end(),
                                    [&](const RdmaNic& n) { return n.name == serving.nic; });
      if (nic == map.nics.end() || nic->pci_path.empty()) continue;
    }
    names.push_back(serving.nic);
  }
  return names;
}

}  // namespace xfer::topology
