#include "doctor/ceiling.h"

#include <fmt/format.h>

#include "doctor/goodput.h"
#include "doctor/units.h"

namespace xfer::doctor {
namespace {

ActiveMtu FindActiveMtu(const PathReading& path, const CeilingOptions& options) {
  if (options.run_mtu_bytes) {
    return {topology::Reading<int>::Known(*options.run_mtu_bytes), "the run's Mtu"};
  }
  if (!path.port.is_ethernet()) {
    return {topology::Reading<int>::Unknown("an IB port's active MTU is not in sysfs (ibv_query_port only)"),
            "not in sysfs"};
  }
  if (!path.netdev) return {topology::Reading<int>::Unknown(path.port.netdev.unknown_reason), "no netdev"};
  if (!path.netdev->mtu.known()) return {topology::Reading<int>::Unknown(path.netdev->mtu.unknown_reason), "no netdev MTU"};
  const int64_t netdev_mtu = *path.netdev->mtu.value;
  const bool soft = path.port.software;
  const std::string how = fmt::format("derived from netdev {} MTU {} − {} ({}); sysfs has no active MTU file",
                                      path.netdev->name, netdev_mtu, soft ? 80 : 96,
                                      soft ? "rxe RXE_MAX_HDR_LENGTH" : "iboe_get_mtu");
  const std::optional<int> mtu = RoceActiveMtu(netdev_mtu, soft);
  if (!mtu) return {topology::Reading<int>::Unknown(fmt::format("netdev MTU {} is below RoCE's 256", netdev_mtu)), how};
  return {topology::Reading<int>::Known(*mtu), how};
}

CeilingFactor UnknownFactor(std::string name, std::string why) {
  CeilingFactor factor;
  factor.name = std::move(name);
  factor.short_source = factor.name + " unknown";
  factor.bytes_per_s = topology::Reading<double>::Unknown(std::move(why));
  return factor;
}

CeilingFactor RocePortFactor(const PathReading& path, const ActiveMtu& mtu) {
  if (!path.netdev) return UnknownFactor("port rate", path.port.netdev.unknown_reason);
  const topology::NetdevReading& netdev = *path.netdev;
  if (!netdev.speed_mbps.known()) {
    return UnknownFactor(fmt::format("port rate (netdev {})", netdev.name),
                         netdev.speed_mbps.unknown_reason +
                             (path.port.rate_text.known()
                                  ? fmt::format("; the port's rate '{}' is not used: for RoCE the netdev "
                                                "speed is the truth, and an unknown speed reads as 2.5 Gb/sec",
                                                *path.port.rate_text.value)
                                  : ""));
  }
  if (!mtu.bytes.known()) return UnknownFactor("port goodput", "active MTU " + mtu.bytes.UnknownText());
  const bool assumed = !path.port.encapsulation.known();
  const topology::RoceEncapsulation encapsulation =
      assumed ? topology::RoceEncapsulation::kV2Ipv4 : *path.port.encapsulation.value;
  const int overhead = RocePacketOverheadBytes(encapsulation);
  const double efficiency = PacketEfficiency(*mtu.bytes.value, overhead);
  const double line_gbps = static_cast<double>(*netdev.speed_mbps.value) / 1000.0;
  CeilingFactor factor;
  factor.name = fmt::format("port rate {} Gb/s (netdev {} speed {} Mb/s)", FormatNumber(line_gbps), netdev.name,
                            *netdev.speed_mbps.value);
  factor.short_source = fmt::format("port {} Gb/s × {} eff at MTU {}", FormatNumber(line_gbps),
                                    RoceEncapsulationName(encapsulation), *mtu.bytes.value);
  factor.bytes_per_s = topology::Reading<double>::Known(line_gbps * 1e9 / 8.0 * efficiency);
  factor.detail = fmt::format("{} {} B per packet, eff {:.2f} % at MTU {}{}", RoceEncapsulationName(encapsulation),
                              overhead, efficiency * 100.0, *mtu.bytes.value,
                              assumed ? fmt::format(" (GID type assumed: {})", path.port.encapsulation.unknown_reason)
                                      : "");
  return factor;
}

CeilingFactor IbPortFactor(const PathReading& path, const ActiveMtu& mtu, const CeilingOptions& options) {
  if (!path.port.rate.known()) return UnknownFactor("IB port rate", path.port.rate.unknown_reason);
  const topology::PortRate& rate = *path.port.rate.value;
  const std::optional<double> lane = IbLaneDataGbps(rate.speed_name);
  if (!lane || rate.width < 1) {
    return UnknownFactor("IB port rate", fmt::format("rate '{}' names no known speed and width, so its encoding "
                                                     "is unknown",
                                                     path.port.rate_text.value.value_or("")));
  }
  const int payload = mtu.bytes.value.value_or(4096);
  const int overhead = IbPacketOverheadBytes(options.unreliable_datagram);
  const double efficiency = PacketEfficiency(payload, overhead);
  const double data_gbps = *lane * rate.width;
  CeilingFactor factor;
  factor.name = fmt::format("IB port {}X {} (data rate {} Gb/s)", rate.width, rate.speed_name,
                            FormatNumber(data_gbps));
  factor.short_source = fmt::format("IB {}X {} {} Gb/s data × {} eff at MTU {}", rate.width, rate.speed_name,
                                    FormatNumber(data_gbps), options.unreliable_datagram ? "UD" : "RC", payload);
  factor.bytes_per_s = topology::Reading<double>::Known(data_gbps * 1e9 / 8.0 * efficiency);
  factor.detail = fmt::format("{} {} B per packet, eff {:.2f} % at MTU {}{}", options.unreliable_datagram ? "UD" : "RC",
                              overhead, efficiency * 100.0, payload,
                              mtu.bytes.known() ? "" : " (MTU assumed 4096: " + mtu.bytes.unknown_reason + ")");
  return factor;
}

std::string LinkText(const topology::PcieLinkState& link) {
  return fmt::format("{} x{}", link.speed_gts.known() ? FormatNumber(*link.speed_gts.value) + " GT/s" : "? GT/s",
                     link.width.known() ? std::to_string(*link.width.value) : "?");
}

CeilingFactor PcieHopFactor(const topology::PcieHop& hop) {
  const std::string where = fmt::format("link at {}{}", hop.address,
                                        hop.is_virtual() ? fmt::format(" (virtual: {})", hop.virtual_label) : "");
  if (!hop.current.speed_gts.known()) return UnknownFactor("PCIe " + where, hop.current.speed_gts.unknown_reason);
  if (!hop.current.width.known()) return UnknownFactor("PCIe " + where, hop.current.width.unknown_reason);
  const double speed = *hop.current.speed_gts.value;
  const int width = static_cast<int>(*hop.current.width.value);
  const std::optional<double> goodput = PcieGoodputBytesPerSec(speed, width, kAssumedMaxPayload);
  if (!goodput) return UnknownFactor("PCIe " + where, fmt::format("{} GT/s is no PCIe generation", FormatNumber(speed)));
  const std::optional<double> goodput128 = PcieGoodputBytesPerSec(speed, width, 128);
  CeilingFactor factor;
  factor.name = fmt::format("{} x{} {}", PcieGenerationName(speed), width, where);
  factor.short_source = fmt::format("PCIe {} GT/s x{}{}", FormatNumber(speed), width, hop.is_virtual() ? " (virtual)" : "");
  factor.bytes_per_s = topology::Reading<double>::Known(*goodput);
  factor.detail = fmt::format("{} GB/s before TLPs; MPS unknown (DevCtl needs root; not read): {} GB/s at the "
                              "assumed MPS {}, {} GB/s at MPS 128",
                              FormatFixed(*PcieLaneDataGbps(speed) * width / 8.0, 3), FormatFixed(*goodput / 1e9, 3),
                              kAssumedMaxPayload, FormatFixed(*goodput128 / 1e9, 3));
  factor.is_virtual = hop.is_virtual();
  return factor;
}

bool Below(const topology::PcieLinkState& current, const topology::PcieLinkState& capable) {
  const bool slower = current.speed_gts.known() && capable.speed_gts.known() &&
                      *current.speed_gts.value < *capable.speed_gts.value;
  const bool narrower = current.width.known() && capable.width.known() && *current.width.value < *capable.width.value;
  return slower || narrower;
}

void AddPcieWarnings(const topology::PciePath& pcie, std::vector<std::string>& warnings) {
  if (pcie.hops.empty()) return;
  const topology::PcieHop& nic = pcie.hops.front();
  for (const topology::PcieHop& hop : pcie.hops) {
    if (Below(hop.current, hop.max)) {
      warnings.push_back(fmt::format("PCIe link at {}{} runs at {}, below its capability {}", hop.address,
                                     hop.is_virtual() ? " (virtual)" : "", LinkText(hop.current), LinkText(hop.max)));
    }
    if (&hop != &nic && Below(hop.max, nic.max)) {
      warnings.push_back(fmt::format("bridge {} ({} max) is narrower or slower than the device {} ({} max)",
                                     hop.address, LinkText(hop.max), nic.address, LinkText(nic.max)));
    }
  }
}

void AddPortWarnings(const PathReading& path, const ActiveMtu& mtu, std::vector<std::string>& warnings) {
  if (path.port.state.known() && path.port.state.value->find("ACTIVE") == std::string::npos) {
    warnings.push_back(fmt::format("port state is '{}', not ACTIVE", *path.port.state.value));
  }
  if (!path.port.is_ethernet()) return;
  if (mtu.bytes.known() && *mtu.bytes.value <= 1024 && path.netdev && path.netdev->mtu.known()) {
    warnings.push_back(fmt::format("active MTU {} (netdev MTU {}): a netdev MTU of {} or more gives 4096",
                                   *mtu.bytes.value, *path.netdev->mtu.value, path.port.software ? 4176 : 4192));
  }
  const bool virtio = path.netdev && (path.netdev->driver == "virtio_net" ||
                                      (!path.pcie.hops.empty() && path.pcie.hops.front().virtual_label == "virtio"));
  if (virtio) {
    warnings.push_back("capability unknown: virtio-net reports no supported link modes, so whether the port runs "
                       "below its capability cannot be seen from inside");
  } else if (path.netdev && path.netdev->speed_mbps.known()) {
    warnings.push_back(fmt::format("capability not in sysfs: compare `ethtool {0}` Supported link modes and "
                                   "`ethtool -m {0}` (optics) with the {1} Mb/s it runs at",
                                   path.netdev->name, *path.netdev->speed_mbps.value));
  }
}

std::string JoinSources(const std::vector<CeilingFactor>& factors) {
  std::string line;
  for (const CeilingFactor& factor : factors) {
    if (!line.empty()) line += "; ";
    line += factor.short_source;
  }
  return line;
}

void PickBinding(Ceiling& ceiling) {
  for (size_t i = 0; i < ceiling.factors.size(); ++i) {
    const CeilingFactor& factor = ceiling.factors[i];
    if (!factor.bytes_per_s.known()) {
      if (!ceiling.incomplete.empty()) ceiling.incomplete += "; ";
      ceiling.incomplete += factor.name + " " + factor.bytes_per_s.UnknownText();
      continue;
    }
    if (!ceiling.binding || *factor.bytes_per_s.value < *ceiling.factors[*ceiling.binding].bytes_per_s.value) {
      ceiling.binding = i;
    }
  }
  ceiling.bytes_per_s = ceiling.binding ? ceiling.factors[*ceiling.binding].bytes_per_s
                                        : topology::Reading<double>::Unknown(ceiling.incomplete);
}

// "40 Gb/s QDR" (IB) or "10 Gb/s" (RoCE): the port's link as the sentence
// below names it; "" when unknown.
std::string PortLinkText(const PathReading& path) {
  if (path.port.is_ethernet()) {
    if (path.netdev && path.netdev->speed_mbps.known()) {
      return fmt::format("{} Gb/s", FormatNumber(static_cast<double>(*path.netdev->speed_mbps.value) / 1000.0));
    }
    return "";
  }
  if (!path.port.rate.known()) return "";
  const topology::PortRate& rate = *path.port.rate.value;
  return fmt::format("{} Gb/s{}{}", FormatNumber(rate.gbps), rate.speed_name.empty() ? "" : " ", rate.speed_name);
}

// When a PCIe link binds below a known port factor, one sentence saying so
// (issue 11): "PCIe 2.0 x4 limits this port to 1.803 GB/s, below the 40 Gb/s
// QDR link". Factors are [port, hops...], so factor i >= 1 is hop i − 1.
void AddPcieBindsWarning(const PathReading& path, const Ceiling& ceiling, std::vector<std::string>& warnings) {
  if (!ceiling.binding || *ceiling.binding == 0 || ceiling.factors.empty()) return;
  const CeilingFactor& port = ceiling.factors.front();
  const CeilingFactor& pcie = ceiling.factors[*ceiling.binding];
  if (!port.bytes_per_s.known() || *pcie.bytes_per_s.value >= *port.bytes_per_s.value) return;
  const topology::PcieHop& hop = path.pcie.hops.at(*ceiling.binding - 1);
  const std::string link = PortLinkText(path);
  warnings.push_back(fmt::format("{} x{}{} limits this port to {} GB/s, below the {} link",
                                 PcieGenerationName(*hop.current.speed_gts.value), *hop.current.width.value,
                                 hop.is_virtual() ? " (virtual)" : "", FormatFixed(*pcie.bytes_per_s.value / 1e9, 3),
                                 link.empty() ? "port's" : link));
}

}  // namespace

std::string PcieGenerationName(double gigatransfers_per_s) {
  const std::optional<int> generation = PcieGeneration(gigatransfers_per_s);
  return generation ? fmt::format("PCIe {}.0", *generation)
                    : fmt::format("PCIe {} GT/s", FormatNumber(gigatransfers_per_s));
}

Ceiling ComputeCeiling(const PathReading& path, const CeilingOptions& options) {
  Ceiling ceiling;
  ceiling.active_mtu = FindActiveMtu(path, options);
  if (!path.port.link_layer.known()) {
    ceiling.factors.push_back(UnknownFactor("port", path.port.link_layer.unknown_reason));
  } else if (path.port.is_ethernet()) {
    ceiling.factors.push_back(RocePortFactor(path, ceiling.active_mtu));
  } else {
    ceiling.factors.push_back(IbPortFactor(path, ceiling.active_mtu, options));
  }
  for (const topology::PcieHop& hop : path.pcie.hops) ceiling.factors.push_back(PcieHopFactor(hop));
  PickBinding(ceiling);
  ceiling.source = JoinSources(ceiling.factors);
  if (path.pcie.hops.empty()) ceiling.source += "; " + path.pcie.absent_reason;
  AddPcieBindsWarning(path, ceiling, ceiling.warnings);
  AddPortWarnings(path, ceiling.active_mtu, ceiling.warnings);
  AddPcieWarnings(path.pcie, ceiling.warnings);
  return ceiling;
}

}  // namespace xfer::doctor
