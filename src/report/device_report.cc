#include "report/device_report.h"

#include <fmt/format.h>

namespace xfer::report {
namespace {

using nlohmann::json;
using verbs::DeviceInfo;
using verbs::GidEntry;
using verbs::PortInfo;

// "    label:  value\n" with the value column aligned per indent level.
void Line(std::string& text, int indent, std::string_view label,
          std::string_view value) {
  text += fmt::format("{:{}}{:<22}{}\n", "", indent,
                      fmt::format("{}:", label), value);
}

std::string GidLine(const GidEntry& gid) {
  std::string line = fmt::format("{}, {}", gid.ToString(), verbs::GidTypeName(gid.type));
  if (gid.IsIpv4Mapped()) line += ", IPv4-mapped";
  if (gid.IsLinkLocal()) line += ", link-local";
  if (!gid.netdev.empty()) line += ", netdev " + gid.netdev;
  return line;
}

void PortText(std::string& text, const PortInfo& port) {
  text += fmt::format("    port {}:\n", port.number);
  constexpr int kIndent = 8;
  Line(text, kIndent, "state",
       fmt::format("{} ({})", port.StateName(), static_cast<int>(port.state)));
  Line(text, kIndent, "phys_state",
       fmt::format("{} ({})", port.PhysStateName(), port.phys_state));
  Line(text, kIndent, "active_mtu", fmt::format("{} bytes", port.ActiveMtuBytes()));
  Line(text, kIndent, "max_mtu", fmt::format("{} bytes", port.MaxMtuBytes()));
  Line(text, kIndent, "rate", LinkRateText(port));
  Line(text, kIndent, "link_layer", verbs::LinkLayerName(port.link_layer));
  if (port.link_layer != verbs::LinkLayer::kEthernet) {
    Line(text, kIndent, "port_lid", fmt::format("{}", port.lid));
    Line(text, kIndent, "sm_lid", fmt::format("{}", port.sm_lid));
    Line(text, kIndent, "port_lmc", fmt::format("{:#04x}", port.lmc));
  }
  Line(text, kIndent, "gid_tbl_len", fmt::format("{}", port.gid_table_len));
  if (port.gids.empty()) Line(text, kIndent, "GIDs", "none valid");
  for (const GidEntry& gid : port.gids) {
    Line(text, kIndent, fmt::format("GID[{:>3}]", gid.index), GidLine(gid));
  }
}

void DeviceText(std::string& text, const DeviceInfo& device) {
  constexpr int kIndent = 4;
  text += fmt::format("hca_id: {}\n", device.name);
  Line(text, kIndent, "transport", device.transport);
  Line(text, kIndent, "node_guid", device.node_guid);
  if (!device.fw_ver.empty()) Line(text, kIndent, "fw_ver", device.fw_ver);
  Line(text, kIndent, "vendor_id", fmt::format("{:#x}", device.vendor_id));
  Line(text, kIndent, "vendor_part_id", fmt::format("{}", device.vendor_part_id));
  Line(text, kIndent, "hw_ver", fmt::format("{:#x}", device.hw_ver));
  Line(text, kIndent, "max_mr_size",
       fmt::format("{:#x} bytes", device.max_mr_size));
  Line(text, kIndent, "max_qp", fmt::format("{}", device.max_qp));
  Line(text, kIndent, "max_qp_wr", fmt::format("{}", device.max_qp_wr));
  Line(text, kIndent, "max_sge", fmt::format("{}", device.max_sge));
  Line(text, kIndent, "max_cqe", fmt::format("{}", device.max_cqe));
  Line(text, kIndent, "max_mr", fmt::format("{}", device.max_mr));
  Line(text, kIndent, "max_qp_rd_atom", fmt::format("{}", device.max_qp_rd_atom));
  Line(text, kIndent, "max_qp_init_rd_atom",
       fmt::format("{}", device.max_qp_init_rd_atom));
  Line(text, kIndent, "atomic_cap",
       fmt::format("{} ({})", verbs::AtomicCapName(device.atomic_cap),
                   static_cast<int>(device.atomic_cap)));
  Line(text, kIndent, "phys_port_cnt", fmt::format("{}", device.ports.size()));
  for (const PortInfo& port : device.ports) PortText(text, port);
}

json GidJson(const GidEntry& gid) {
  return json{{"index", gid.index},
              {"gid", gid.ToString()},
              {"type", verbs::GidTypeName(gid.type)},
              {"ipv4_mapped", gid.IsIpv4Mapped()},
              {"link_local", gid.IsLinkLocal()},
              {"netdev", gid.netdev}};
}

json PortJson(const PortInfo& port) {
  json gids = json::array();
  for (const GidEntry& gid : port.gids) gids.push_back(GidJson(gid));
  return json{{"port", port.number},
              {"state", port.StateName()},
              {"phys_state", port.PhysStateName()},
              {"active_mtu_bytes", port.ActiveMtuBytes()},
              {"max_mtu_bytes", port.MaxMtuBytes()},
              {"lane_gbps", port.lane_gbps},
              {"lanes", port.lanes},
              {"link_gbps", port.LinkGbps()},
              {"link_layer", verbs::LinkLayerName(port.link_layer)},
              {"lid", port.lid},
              {"sm_lid", port.sm_lid},
              {"lmc", port.lmc},
              {"gid_table_len", port.gid_table_len},
              {"gids", std::move(gids)}};
}

json DeviceJson(const DeviceInfo& device) {
  json ports = json::array();
  for (const PortInfo& port : device.ports) ports.push_back(PortJson(port));
  return json{{"name", device.name},
              {"transport", device.transport},
              {"node_guid", device.node_guid},
              {"fw_ver", device.fw_ver},
              {"vendor_id", device.vendor_id},
              {"vendor_part_id", device.vendor_part_id},
              {"hw_ver", device.hw_ver},
              {"max_qp", device.max_qp},
              {"max_qp_wr", device.max_qp_wr},
              {"max_sge", device.max_sge},
              {"max_cqe", device.max_cqe},
              {"max_mr", device.max_mr},
              {"max_qp_rd_atom", device.max_qp_rd_atom},
              {"max_qp_init_rd_atom", device.max_qp_init_rd_atom},
              {"max_mr_size_bytes", device.max_mr_size},
              {"atomic_cap", verbs::AtomicCapName(device.atomic_cap)},
              {"ports", std::move(ports)}};
}

}  // namespace

std::string LinkRateText(const PortInfo& port) {
  if (port.lane_gbps <= 0 || port.lanes <= 0) return "unknown";
  return fmt::format("{} Gb/s × {} = {} Gb/s (10^9 bit/s)", port.lane_gbps,
                     port.lanes, port.LinkGbps());
}

std::string DeviceReportText(std::span<const DeviceInfo> devices) {
  std::string text;
  for (const DeviceInfo& device : devices) {
    if (!text.empty()) text += '\n';
    DeviceText(text, device);
  }
  return text;
}

json DeviceReportJson(std::span<const DeviceInfo> devices) {
  json list = json::array();
  for (const DeviceInfo& device : devices) list.push_back(DeviceJson(device));
  return json{{"units",
               {{"lane_gbps", "Gb/s (10^9 bit/s), signalling rate per lane"},
                {"link_gbps", "Gb/s (10^9 bit/s), lane_gbps * lanes"},
                {"active_mtu_bytes", "bytes"},
                {"max_mtu_bytes", "bytes"},
                {"max_mr_size_bytes", "bytes"}}},
              {"devices", std::move(list)}};
}

}  // namespace xfer::report
