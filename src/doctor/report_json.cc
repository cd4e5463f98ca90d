#include "doctor/doctor_report.h"

namespace xfer::doctor {
namespace {

using nlohmann::json;

template <typename T>
json Value(const topology::Reading<T>& reading) {
  return reading.known() ? json(*reading.value) : json{{"unknown", reading.unknown_reason}};
}

json LinkJson(const topology::PcieLinkState& link) {
  return json{{"speed_gts", Value(link.speed_gts)}, {"width", Value(link.width)}};
}

json PcieJson(const topology::PciePath& pcie) {
  json hops = json::array();
  for (const topology::PcieHop& hop : pcie.hops) {
    hops.push_back({{"address", hop.address},
                    {"path", hop.path},
                    {"vendor", Value(hop.vendor)},
                    {"device", Value(hop.device_id)},
                    {"current", LinkJson(hop.current)},
                    {"max", LinkJson(hop.max)},
                    {"virtual", hop.is_virtual() ? json(hop.virtual_label) : json(false)}});
  }
  json out{{"hops", std::move(hops)}, {"numa_node", Value(pcie.numa_node)}};
  if (pcie.hops.empty()) out["absent_reason"] = pcie.absent_reason;
  return out;
}

json NetdevJson(const PathReading& path) {
  if (!path.netdev) return json{{"unknown", path.port.netdev.unknown_reason}};
  const topology::NetdevReading& netdev = *path.netdev;
  return json{{"name", netdev.name},
              {"operstate", Value(netdev.operstate)},
              {"speed_mbps", Value(netdev.speed_mbps)},
              {"mtu", Value(netdev.mtu)},
              {"duplex", Value(netdev.duplex)},
              {"driver", netdev.driver}};
}

json CeilingJson(const Ceiling& ceiling) {
  json factors = json::array();
  for (const CeilingFactor& factor : ceiling.factors) {
    factors.push_back({{"name", factor.name},
                       {"bytes_per_sec", Value(factor.bytes_per_s)},
                       {"detail", factor.detail},
                       {"virtual", factor.is_virtual}});
  }
  const CeilingFactor* binding = ceiling.binding_factor();
  return json{{"bytes_per_sec", Value(ceiling.bytes_per_s)},
              {"binding", binding ? json(binding->name) : json(nullptr)},
              {"source", ceiling.source},
              {"incomplete", ceiling.incomplete.empty() ? json(nullptr) : json(ceiling.incomplete)},
              {"active_mtu", Value(ceiling.active_mtu.bytes)},
              {"active_mtu_source", ceiling.active_mtu.how},
              {"factors", std::move(factors)},
              {"warnings", ceiling.warnings}};
}

json PortJson(const PortDiagnosis& diagnosis) {
  const topology::RdmaPortReading& port = diagnosis.path.port;
  return json{{"device", port.device},
              {"port", port.port},
              {"software", port.software},
              {"state", Value(port.state)},
              {"phys_state", Value(port.phys_state)},
              {"rate", Value(port.rate_text)},
              {"link_layer", Value(port.link_layer)},
              {"gid_types", port.gid_types},
              {"netdev", NetdevJson(diagnosis.path)},
              {"pcie", PcieJson(diagnosis.path.pcie)},
              {"ceiling", CeilingJson(diagnosis.ceiling)}};
}

json InventoryJson(const topology::HostInventory& host) {
  json numa = json::array();
  for (const topology::NumaNode& node : host.numa_nodes) {
    numa.push_back({{"node", node.id}, {"cpulist", Value(node.cpulist)}, {"total_kib", Value(node.total_kib)}});
  }
  json pci = json::array();
  for (const topology::PciFunction& function : host.pci) {
    pci.push_back({{"address", function.address},
                   {"role", function.role},
                   {"vendor", Value(function.vendor)},
                   {"device", Value(function.device_id)},
                   {"vendor_name", function.vendor_name.empty() ? json(nullptr) : json(function.vendor_name)},
                   {"pcie", PcieJson(function.path)}});
  }
  return json{{"cpu", {{"model", Value(host.cpu.model)}, {"online", Value(host.cpu.online)}, {"count", Value(host.cpu.count)}}},
              {"memory", {{"total_kib", Value(host.memory.total_kib)}, {"available_kib", Value(host.memory.available_kib)}}},
              {"numa_nodes", std::move(numa)},
              {"numa_absent", host.numa_absent.empty() ? json(nullptr) : json(host.numa_absent)},
              {"pci", std::move(pci)}};
}

json GpusJson(const std::vector<topology::GpuTopology>& gpus) {
  json out = json::array();
  for (const topology::GpuTopology& gpu : gpus) {
    json nics = json::array();
    for (const topology::NicDistance& nic : gpu.nics) {
      nics.push_back({{"nic", nic.nic},
                      {"relation", nic.distance.relation},
                      {"legend", nic.distance.legend.empty() ? json(nullptr) : json(nic.distance.legend)}});
    }
    out.push_back({{"address", gpu.address},
                   {"bar1_bytes", Value(gpu.bar1_bytes)},
                   {"peermem", Value(gpu.peermem)},
                   {"nics", std::move(nics)},
                   {"no_nic", gpu.no_nic.empty() ? json(nullptr) : json(gpu.no_nic)}});
  }
  return out;
}

json NicMapJson(const NicMapDiagnosis& map) {
  json served = json::array();
  for (const ServedMemory& memory : map.served) {
    json nics = json::array();
    for (const topology::ServingNic& nic : memory.nics) {
      nics.push_back({{"nic", nic.nic}, {"tier", topology::TierName(nic.tier)}});
    }
    served.push_back({{"gpu", memory.gpu.empty() ? json(nullptr) : json(memory.gpu)},
                      {"numa_node", memory.numa_node < 0 ? json(nullptr) : json(memory.numa_node)},
                      {"nics", std::move(nics)}});
  }
  return {{"served", std::move(served)}, {"warnings", map.warnings}};
}

json HostJson(const DoctorReport& report) {
  json pools = json::array();
  for (const HugepagePool& pool : report.host.pools) {
    pools.push_back({{"page_kib", pool.page_kib}, {"total", Value(pool.total)}, {"free", Value(pool.free)}});
  }
  json host = InventoryJson(report.inventory);
  host["gpus"] = GpusJson(report.gpus);
  host["nic_map"] = NicMapJson(report.nic_map);
  host.update(json{{"default_hugepage_kib", Value(report.host.default_hugepage_kib)},
              {"hugepage_pools", std::move(pools)},
              {"thp_enabled", Value(report.host.thp_enabled)},
              {"governor", Value(report.host.governor)},
              {"warnings", report.host_warnings}});
  return host;
}

}  // namespace

json DoctorJson(const DoctorReport& report) {
  json ports = json::array();
  for (const PortDiagnosis& port : report.ports) ports.push_back(PortJson(port));
  json verdicts = json::array();
  for (const Verdict& verdict : report.verdicts) {
    verdicts.push_back({{"line", verdict.line},
                        {"fraction", verdict.fraction ? json(*verdict.fraction) : json(nullptr)},
                        {"link_bound", verdict.link_bound}});
  }
  return json{{"schema", {{"name", "xfer.doctor"}, {"version", 1}}},
              {"units",
               {{"bytes_per_sec", "bytes/s"},
                {"speed_mbps", "Mb/s (10^6 bit/s)"},
                {"speed_gts", "GT/s"},
                {"mtu", "bytes"},
                {"bar1_bytes", "bytes"},
                {"page_kib", "KiB (2^10 bytes)"},
                {"total_kib", "KiB (2^10 bytes)"},
                {"available_kib", "KiB (2^10 bytes)"},
                {"fraction", "measured / expected"}}},
              {"sysfs_root", report.sysfs_root},
              {"ports", std::move(ports)},
              {"host", HostJson(report)},
              {"verdicts", std::move(verdicts)},
              {"run",
               report.run_outcome
                   ? json{{"outcome", report.run_outcome->outcome.empty()
                                          ? json(nullptr)
                                          : json(report.run_outcome->outcome)},
                          {"error", report.run_outcome->error.empty()
                                        ? json(nullptr)
                                        : json(report.run_outcome->error)}}
                   : json(nullptr)}};
}

}  // namespace xfer::doctor
