#include "topology/rdma_port.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace xfer::topology {
namespace {

std::string PortDir(const std::string& device, int port) {
  return fmt::format("/sys/class/infiniband/{}/ports/{}", device, port);
}

bool IsIpv4MappedGid(const std::string& gid) {
  return gid.starts_with("0000:0000:0000:0000:0000:ffff:");
}

Reading<RoceEncapsulation> ReadEncapsulation(const SysfsReader& sysfs, const std::string& dir,
                                             std::vector<std::string>& types) {
  std::vector<std::string> indices = sysfs.List(dir + "/gid_attrs/types");
  std::sort(indices.begin(), indices.end(),
            [](const std::string& a, const std::string& b) { return std::atoi(a.c_str()) < std::atoi(b.c_str()); });
  bool has_v1 = false;
  bool has_v2 = false;
  bool has_v2_ipv4 = false;
  for (const std::string& index : indices) {
    const Reading<std::string> type = sysfs.ReadText(dir + "/gid_attrs/types/" + index);
    if (!type.known()) continue;  // unset GIDs fail to read
    types.push_back(*type.value);
    if (*type.value == "RoCE v2") {
      has_v2 = true;
      const Reading<std::string> gid = sysfs.ReadText(dir + "/gids/" + index);
      if (gid.known() && IsIpv4MappedGid(*gid.value)) has_v2_ipv4 = true;
    } else if (type.value->find("RoCE v1") != std::string::npos) {
      has_v1 = true;
    }
  }
  if (has_v2_ipv4) return Reading<RoceEncapsulation>::Known(RoceEncapsulation::kV2Ipv4);
  if (has_v2) return Reading<RoceEncapsulation>::Known(RoceEncapsulation::kV2Ipv6);
  if (has_v1) return Reading<RoceEncapsulation>::Known(RoceEncapsulation::kV1);
  return Reading<RoceEncapsulation>::Unknown(
      fmt::format("no readable GID type under {}/gid_attrs/types", dir));
}

Reading<std::string> ReadNetdev(const SysfsReader& sysfs, const std::string& device,
                                const std::string& dir, bool software) {
  for (const std::string& index : sysfs.List(dir + "/gid_attrs/ndevs")) {
    const Reading<std::string> name = sysfs.ReadText(dir + "/gid_attrs/ndevs/" + index);
    if (name.known()) return name;
  }
  if (software) return sysfs.ReadText(fmt::format("/sys/class/infiniband/{}/parent", device));
  const std::vector<std::string> nets = sysfs.List(fmt::format("/sys/class/infiniband/{}/device/net", device));
  if (!nets.empty()) return Reading<std::string>::Known(nets.front());
  return Reading<std::string>::Unknown(
      fmt::format("no netdev named by {}/gid_attrs/ndevs or the device's net/ folder", dir));
}

}  // namespace

Reading<PortRate> ParsePortRate(const std::string& text) {
  PortRate rate;
  const char* begin = text.data();
  const char* end = begin + text.size();
  const auto [after, error] = std::from_chars(begin, end, rate.gbps);
  const std::string_view rest(after, static_cast<size_t>(end - after));
  if (error != std::errc() || !rest.starts_with(" Gb/sec")) {
    return Reading<PortRate>::Unknown(fmt::format("rate '{}' is not '<n> Gb/sec (<w>X<speed>)'", text));
  }
  const size_t open = rest.find('(');
  const size_t x = rest.find('X', open);
  const size_t close = rest.find(')', open);
  if (open != std::string_view::npos && x != std::string_view::npos && close != std::string_view::npos &&
      x < close) {
    std::from_chars(rest.data() + open + 1, rest.data() + x, rate.width);
    rate.speed_name = std::string(rest.substr(x + 1, close - x - 1));
    while (rate.speed_name.starts_with(' ')) rate.speed_name.erase(0, 1);
  }
  return Reading<PortRate>::Known(rate);
}

std::vector<std::string> ListRdmaDevices(const SysfsReader& sysfs) {
  return sysfs.List("/sys/class/infiniband");
}

std::vector<int> ListRdmaPorts(const SysfsReader& sysfs, const std::string& device) {
  std::vector<int> ports;
  for (const std::string& name : sysfs.List(fmt::format("/sys/class/infiniband/{}/ports", device))) {
    int port = 0;
    const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), port);
    if (error == std::errc() && end == name.data() + name.size()) ports.push_back(port);
  }
  std::sort(ports.begin(), ports.end());
  return ports;
}

RdmaPortReading ReadRdmaPort(const SysfsReader& sysfs, const std::string& device, int port) {
  const std::string dir = PortDir(device, port);
  RdmaPortReading reading;
  reading.device = device;
  reading.port = port;
  reading.state = sysfs.ReadText(dir + "/state");
  reading.phys_state = sysfs.ReadText(dir + "/phys_state");
  reading.rate_text = sysfs.ReadText(dir + "/rate");
  reading.rate = reading.rate_text.known() ? ParsePortRate(*reading.rate_text.value)
                                           : Reading<PortRate>::Unknown(reading.rate_text.unknown_reason);
  reading.link_layer = sysfs.ReadText(dir + "/link_layer");
  reading.software = sysfs.Exists(fmt::format("/sys/class/infiniband/{}/parent", device));
  if (reading.is_ethernet()) {
    reading.netdev = ReadNetdev(sysfs, device, dir, reading.software);
    reading.encapsulation = ReadEncapsulation(sysfs, dir, reading.gid_types);
  } else {
    reading.netdev = Reading<std::string>::Unknown("an InfiniBand port has no Ethernet netdev");
    reading.encapsulation = Reading<RoceEncapsulation>::Unknown("not an Ethernet port");
  }
  return reading;
}

}  // namespace xfer::topology
