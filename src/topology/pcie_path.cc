#include "topology/pcie_path.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <string_view>

namespace xfer::topology {
namespace {

constexpr int64_t kVirtioVendor = 0x1af4;
constexpr int64_t kRedHatQemuVendor = 0x1b36;
constexpr int64_t kQemuRootPortDevice = 0x000c;

bool HasLink(const SysfsReader& sysfs, const std::string& dir) {
  return sysfs.Exists(dir + "/current_link_speed");
}

// Whether `dir` names a PCI function: its last component is a bus address
// "dddd:bb:dd.f" (a virtio or net child below it has a vendor file too).
bool IsPciFunction(const std::string& dir) {
  const std::string_view name = std::string_view(dir).substr(dir.find_last_of('/') + 1);
  constexpr std::string_view kShape = "hhhh:hh:hh.f";
  if (name.size() != kShape.size()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = kShape[i] == 'h'   ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                    : kShape[i] == 'f' ? c >= '0' && c <= '7'
                                       : c == kShape[i];
    if (!ok) return false;
  }
  return true;
}

std::string VirtualLabel(const Reading<int64_t>& vendor, const Reading<int64_t>& device) {
  if (!vendor.known()) return "";
  if (*vendor.value == kVirtioVendor) return "virtio";
  if (*vendor.value == kRedHatQemuVendor) {
    return device.known() && *device.value == kQemuRootPortDevice ? "QEMU PCIe root port" : "QEMU/Red Hat";
  }
  return "";
}

PcieLinkState ReadLink(const SysfsReader& sysfs, const std::string& dir, const char* which) {
  PcieLinkState link;
  const Reading<std::string> speed = sysfs.ReadText(fmt::format("{}/{}_link_speed", dir, which));
  link.speed_gts = speed.known() ? ParsePcieSpeed(*speed.value) : Reading<double>::Unknown(speed.unknown_reason);
  if (!link.speed_gts.known() && speed.known()) {
    link.speed_gts.unknown_reason = fmt::format("{}/{}_link_speed: {}", dir, which, link.speed_gts.unknown_reason);
  }
  link.width = sysfs.ReadInteger(fmt::format("{}/{}_link_width", dir, which));
  if (link.width.known() && *link.width.value < 1) {
    link.width = Reading<int64_t>::Unknown(fmt::format("{}/{}_link_width reads {} (link down)", dir, which,
                                                       *link.width.value));
  }
  return link;
}

PcieHop ReadHop(const SysfsReader& sysfs, const std::string& dir) {
  PcieHop hop;
  hop.address = BaseName(dir);
  hop.path = dir;
  hop.vendor = sysfs.ReadInteger(dir + "/vendor");
  hop.device_id = sysfs.ReadInteger(dir + "/device");
  hop.current = ReadLink(sysfs, dir, "current");
  hop.max = ReadLink(sysfs, dir, "max");
  hop.virtual_label = VirtualLabel(hop.vendor, hop.device_id);
  return hop;
}

}  // namespace

Reading<double> ParsePcieSpeed(const std::string& text) {
  double speed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), speed);
  const std::string_view rest(end, static_cast<size_t>(text.data() + text.size() - end));
  if (error != std::errc() || !rest.starts_with(" GT/s") || speed <= 0) {
    return Reading<double>::Unknown(fmt::format("speed reads '{}'", text));
  }
  return Reading<double>::Known(speed);
}

PciePath ReadPciePath(const SysfsReader& sysfs, const std::optional<std::string>& device_path,
                      const std::string& why_absent) {
  PciePath path;
  if (!device_path) {
    path.absent_reason = why_absent;
    path.numa_node = Reading<int64_t>::Unknown("no PCI device");
    return path;
  }
  std::string dir = *device_path;
  std::string function;  // the first PCI function on the way up, linked or not
  while (dir != "/" && !HasLink(sysfs, dir)) {
    if (function.empty() && IsPciFunction(dir)) function = dir;
    dir = ParentPath(dir);
  }
  if (dir == "/" && !function.empty()) {
    // A function on the root complex itself (conventional PCI, or an
    // integrated endpoint) has no link registers: nothing to read, and
    // nothing to invent.
    path.absent_reason = fmt::format(
        "no PCIe link on this path ({} sits on the root complex and has no PCIe link)",
        function.substr(function.find_last_of('/') + 1));
    path.numa_node = sysfs.ReadInteger(function + "/numa_node");
    return path;
  }
  if (dir == "/") {
    path.absent_reason = fmt::format("no PCIe link on this path ({} has no PCI function above it)", *device_path);
    path.numa_node = Reading<int64_t>::Unknown("no PCI device");
    return path;
  }
  path.numa_node = sysfs.ReadInteger(dir + "/numa_node");
  for (; dir != "/" && HasLink(sysfs, dir); dir = ParentPath(dir)) path.hops.push_back(ReadHop(sysfs, dir));
  return path;
}

}  // namespace xfer::topology
