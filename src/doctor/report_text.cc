#include <fmt/format.h>

#include "doctor/doctor_report.h"
#include "doctor/goodput.h"
#include "doctor/units.h"

namespace xfer::doctor {
namespace {

template <typename T>
std::string Show(const topology::Reading<T>& reading) {
  return reading.known() ? fmt::format("{}", *reading.value) : reading.UnknownText();
}

std::string ShowHex(const topology::Reading<int64_t>& reading) {
  return reading.known() ? fmt::format("0x{:04x}", *reading.value) : "?";
}

std::string ShowLink(const topology::PcieLinkState& link) {
  const std::string speed = link.speed_gts.known() ? FormatNumber(*link.speed_gts.value) + " GT/s" : "? GT/s";
  const std::string width = link.width.known() ? fmt::format("x{}", *link.width.value) : "x?";
  return speed + " " + width;
}

std::string ShowBytesPerSec(const topology::Reading<double>& rate) {
  if (!rate.known()) return rate.UnknownText();
  return fmt::format("{} = {} = {}", FormatRate(*rate.value, RateUnit::kGBps), FormatRate(*rate.value, RateUnit::kGbps),
                     FormatRate(*rate.value, RateUnit::kMiBps));
}

void AppendNetdev(const PathReading& path, std::string& text) {
  if (!path.netdev) {
    text += fmt::format("  netdev       {}\n", path.port.netdev.UnknownText());
    return;
  }
  const topology::NetdevReading& netdev = *path.netdev;
  text += fmt::format("  netdev       {} (state {})\n", netdev.name, Show(netdev.operstate));
  text += fmt::format("    speed      {}\n",
                      netdev.speed_mbps.known() ? fmt::format("{} Mb/s", *netdev.speed_mbps.value)
                                                : netdev.speed_mbps.UnknownText());
  text += fmt::format("    MTU        {}\n",
                      netdev.mtu.known() ? fmt::format("{} B", *netdev.mtu.value) : netdev.mtu.UnknownText());
  text += fmt::format("    duplex     {}\n", Show(netdev.duplex));
}

void AppendPcie(const PathReading& path, std::string& text) {
  text += fmt::format("  NUMA node    {}\n", Show(path.pcie.numa_node));
  if (path.pcie.hops.empty()) {
    text += fmt::format("  PCIe path    {}\n", path.pcie.absent_reason);
    return;
  }
  text += "  PCIe path    (the device first, then every bridge up to the root port)\n";
  for (const topology::PcieHop& hop : path.pcie.hops) {
    text += fmt::format("    {}  vendor {} device {}  current {}  max {}{}\n", hop.address, ShowHex(hop.vendor),
                        ShowHex(hop.device_id), ShowLink(hop.current), ShowLink(hop.max),
                        hop.is_virtual() ? fmt::format("  (virtual: {})", hop.virtual_label) : "");
    for (const topology::PcieLinkState* link : {&hop.current, &hop.max}) {
      if (!link->speed_gts.known()) text += fmt::format("      speed {}\n", link->speed_gts.UnknownText());
      if (!link->width.known()) text += fmt::format("      width {}\n", link->width.UnknownText());
    }
  }
}

void AppendCeiling(const Ceiling& ceiling, std::string& text) {
  text += "  ceiling      (goodput per direction; the lowest factor binds)\n";
  for (const CeilingFactor& factor : ceiling.factors) {
    text += fmt::format("    {}: {}\n", factor.name, ShowBytesPerSec(factor.bytes_per_s));
    if (!factor.detail.empty()) text += fmt::format("      {}\n", factor.detail);
  }
  if (const CeilingFactor* binding = ceiling.binding_factor()) {
    text += fmt::format("  expected     {}, bound by {}{}\n", ShowBytesPerSec(ceiling.bytes_per_s), binding->name,
                        binding->is_virtual ? " (virtual: emulated links carry no physical limit)" : "");
  } else {
    text += fmt::format("  expected     {}\n", ceiling.bytes_per_s.UnknownText());
  }
  if (!ceiling.incomplete.empty()) text += fmt::format("               an upper bound: {}\n", ceiling.incomplete);
  for (const std::string& warning : ceiling.warnings) text += fmt::format("  warning: {}\n", warning);
}

void AppendPort(const PortDiagnosis& diagnosis, std::string& text) {
  const topology::RdmaPortReading& port = diagnosis.path.port;
  text += fmt::format("{} port {}{}\n", port.device, port.port, port.software ? " (software RDMA)" : "");
  text += fmt::format("  state        {} ({})\n", Show(port.state), Show(port.phys_state));
  text += fmt::format("  rate         {}{}\n", Show(port.rate_text),
                      port.is_ethernet() ? "  (RoCE: the netdev speed below is what counts)" : "");
  text += fmt::format("  link layer   {}\n", Show(port.link_layer));
  if (port.is_ethernet()) {
    text += fmt::format("  GID types    {}; the model uses {}\n",
                        port.gid_types.empty() ? "none readable" : fmt::format("{}", fmt::join(port.gid_types, ", ")),
                        port.encapsulation.known() ? std::string(RoceEncapsulationName(*port.encapsulation.value))
                                                   : "RoCEv2/IPv4 (assumed)");
  }
  AppendNetdev(diagnosis.path, text);
  const ActiveMtu& mtu = diagnosis.ceiling.active_mtu;
  text += fmt::format("  active MTU   {}{}\n", mtu.bytes.known() ? fmt::format("{} B", *mtu.bytes.value) : mtu.bytes.UnknownText(),
                      mtu.bytes.known() ? " (" + mtu.how + ")" : "");
  AppendPcie(diagnosis.path, text);
  AppendCeiling(diagnosis.ceiling, text);
}

std::string ShowGiB(const topology::Reading<int64_t>& kib) {
  return kib.known() ? fmt::format("{:.1f} GiB", static_cast<double>(*kib.value) / (1 << 20)) : kib.UnknownText();
}

void AppendCpuAndMemory(const topology::HostInventory& host, std::string& text) {
  text += fmt::format("  CPUs         {}{}\n",
                      host.cpu.count.known() ? fmt::format("{} online ({})", *host.cpu.count.value, *host.cpu.online.value)
                                             : host.cpu.count.UnknownText(),
                      host.cpu.model.known() ? ", " + *host.cpu.model.value : "");
  text += fmt::format("  memory       {} total, {} available\n", ShowGiB(host.memory.total_kib),
                      ShowGiB(host.memory.available_kib));
  if (host.numa_nodes.empty()) text += fmt::format("  NUMA         {}\n", host.numa_absent);
  for (const topology::NumaNode& node : host.numa_nodes) {
    text += fmt::format("  NUMA node {}  CPUs {}, {}\n", node.id, Show(node.cpulist), ShowGiB(node.total_kib));
  }
}

void AppendPciFunctions(const topology::HostInventory& host, std::string& text) {
  if (host.pci.empty()) {
    text += "  PCIe         no network or GPU function under /sys/bus/pci/devices\n";
    return;
  }
  text += "  PCIe         (network and GPU functions: link now, link capable, NUMA node)\n";
  for (const topology::PciFunction& function : host.pci) {
    const std::string vendor = function.vendor_name.empty() ? "" : function.vendor_name + " ";
    const std::string link =
        function.path.hops.empty()
            ? function.path.absent_reason
            : fmt::format("current {}  max {}", ShowLink(function.path.hops[0].current),
                          ShowLink(function.path.hops[0].max));
    text += fmt::format("    {}  {:<7}  {}{}:{}  {}  NUMA {}\n", function.address, function.role, vendor,
                        ShowHex(function.vendor), ShowHex(function.device_id), link, Show(function.path.numa_node));
  }
}

// Each GPU against the RDMA NICs: what GPUDirect RDMA's speed depends on.
void AppendGpus(const std::vector<topology::GpuTopology>& gpus, std::string& text) {
  for (const topology::GpuTopology& gpu : gpus) {
    text += fmt::format("  GPU {}{}  BAR1 {}, nvidia-peermem {}\n", gpu.address,
                        gpu.vendor_name.empty() ? "" : " (" + gpu.vendor_name + ")",
                        gpu.bar1_bytes.known()
                            ? fmt::format("{:.1f} GiB", static_cast<double>(*gpu.bar1_bytes.value) /
                                                            (uint64_t{1} << 30))
                            : gpu.bar1_bytes.UnknownText(),
                        Show(gpu.peermem));
    if (!gpu.no_nic.empty()) text += fmt::format("    to RDMA NICs: {}\n", gpu.no_nic);
    for (const topology::NicDistance& nic : gpu.nics) {
      text += fmt::format("    to {:<10} {}{}\n", nic.nic, nic.distance.relation,
                          nic.distance.legend.empty() ? "" : " [" + nic.distance.legend + "]");
    }
  }
}

std::string ServingText(const std::vector<topology::ServingNic>& nics) {
  if (nics.empty()) return "no active RDMA device";
  std::string names;
  for (const topology::ServingNic& nic : nics) {
    if (!names.empty()) names += ", ";
    names += nic.nic;
  }
  return fmt::format("{} [{}]", names, topology::TierName(nics.front().tier));
}

// Which RDMA devices the engine would give memory on each GPU and node.
void AppendNicMap(const NicMapDiagnosis& map, std::string& text) {
  if (map.served.empty()) return;
  text += "  NIC map      (the RDMA devices that serve each GPU's and node's memory)\n";
  for (const ServedMemory& memory : map.served) {
    const std::string what =
        !memory.gpu.empty()       ? "GPU " + memory.gpu
        : memory.numa_node >= 0 ? fmt::format("node {} memory", memory.numa_node)
                                : std::string("host memory");
    text += fmt::format("    {:<18}  {}\n", what, ServingText(memory.nics));
  }
  for (const std::string& warning : map.warnings) text += "  warning: " + warning + "\n";
}

void AppendHost(const DoctorReport& report, std::string& text) {
  const HostTuning& host = report.host;
  text += "host\n";
  AppendCpuAndMemory(report.inventory, text);
  AppendPciFunctions(report.inventory, text);
  AppendGpus(report.gpus, text);
  AppendNicMap(report.nic_map, text);
  text += fmt::format("  hugepages    default size {}\n",
                      host.default_hugepage_kib.known() ? fmt::format("{} KiB", *host.default_hugepage_kib.value)
                                                        : host.default_hugepage_kib.UnknownText());
  for (const HugepagePool& pool : host.pools) {
    text += fmt::format("    {} KiB pages: {} total, {} free\n", pool.page_kib, Show(pool.total), Show(pool.free));
  }
  text += fmt::format("  THP          {}\n", Show(host.thp_enabled));
  text += fmt::format("  governor     {}\n", Show(host.governor));
  for (const std::string& warning : report.host_warnings) text += fmt::format("  warning: {}\n", warning);
}

}  // namespace

std::string DoctorText(const DoctorReport& report) {
  std::string text = fmt::format(
      "xfer doctor (sysfs root {})\nunits: Gb/s = 10^9 bit/s, Mb/s = 10^6 bit/s, GB/s = 10^9 B/s, MiB/s = 2^20 B/s, "
      "GiB = 2^30 B\n\n",
      report.sysfs_root);
  for (const PortDiagnosis& port : report.ports) {
    AppendPort(port, text);
    text += "\n";
  }
  AppendHost(report, text);
  if (!report.verdicts.empty()) {
    text += "\nverdict\n";
    if (report.run_outcome && !report.run_outcome->complete()) {
      text += fmt::format("  the run did not complete ({}{}): only what it finished is judged\n",
                          report.run_outcome->outcome,
                          report.run_outcome->error.empty() ? ""
                                                            : ": " + report.run_outcome->error);
    }
    for (const Verdict& verdict : report.verdicts) text += fmt::format("  {}\n", verdict.line);
  }
  return text;
}

}  // namespace xfer::doctor
