#include "topology/host_inventory.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string_view>

namespace xfer::topology {
namespace {

constexpr std::string_view kPciDevices = "/sys/bus/pci/devices";

bool IsNumbered(const std::string& name, std::string_view prefix) {
  return name.size() > prefix.size() && name.starts_with(prefix) &&
         std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

CpuInventory ReadCpus(const SysfsReader& sysfs) {
  CpuInventory cpu;
  cpu.model = sysfs.ReadField("/proc/cpuinfo", "model name");
  cpu.online = sysfs.ReadText("/sys/devices/system/cpu/online");
  cpu.count = cpu.online.known() ? CountCpuList(*cpu.online.value)
                                 : Reading<int64_t>::Unknown(cpu.online.unknown_reason);
  return cpu;
}

std::vector<NumaNode> ReadNumaNodes(const SysfsReader& sysfs) {
  std::vector<NumaNode> nodes;
  for (const std::string& name : sysfs.List("/sys/devices/system/node")) {
    if (!IsNumbered(name, "node")) continue;
    NumaNode node;
    node.id = std::stoi(name.substr(4));
    const std::string dir = "/sys/devices/system/node/" + name;
    node.cpulist = sysfs.ReadText(dir + "/cpulist");
    node.total_kib =
        KibibytesOf(sysfs.ReadField(dir + "/meminfo", fmt::format("Node {} MemTotal", node.id)));
    nodes.push_back(std::move(node));
  }
  std::sort(nodes.begin(), nodes.end(), [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
  return nodes;
}

// The role the doctor reports a PCI class under, "" for the others.
std::string RoleOf(int64_t pci_class) {
  switch (pci_class >> 16) {
    case 0x02: return "network";
    case 0x03: return "GPU";
    default: return "";
  }
}

std::string VendorName(const Reading<int64_t>& vendor) {
  if (!vendor.known()) return "";
  switch (*vendor.value) {
    case 0x10de: return "NVIDIA";
    case 0x1002: return "AMD";
    case 0x8086: return "Intel";
    case 0x15b3: return "Mellanox/NVIDIA networking";
    case 0x14e4: return "Broadcom";
    case 0x19e5: return "Huawei";
    case 0x1af4: return "virtio";
    case 0x1b36: return "QEMU/Red Hat";
    case 0x1234: return "QEMU";
    case 0x1a03: return "ASPEED";
    default: return "";
  }
}

std::vector<PciFunction> ReadPciFunctions(const SysfsReader& sysfs) {
  std::vector<PciFunction> functions;
  for (const std::string& address : sysfs.List(kPciDevices)) {
    const std::string link = fmt::format("{}/{}", kPciDevices, address);
    const Reading<int64_t> pci_class = sysfs.ReadInteger(link + "/class");
    if (!pci_class.known()) continue;
    std::string role = RoleOf(*pci_class.value);
    if (role.empty()) continue;
    PciFunction function;
    function.address = address;
    function.role = std::move(role);
    function.vendor = sysfs.ReadInteger(link + "/vendor");
    function.device_id = sysfs.ReadInteger(link + "/device");
    function.vendor_name = VendorName(function.vendor);
    function.path = ReadPciePath(sysfs, sysfs.Resolve(link),
                                 fmt::format("{} does not resolve under the root", link));
    functions.push_back(std::move(function));
  }
  return functions;  // List() sorts: address order
}

}  // namespace

Reading<int64_t> CountCpuList(const std::string& list) {
  int64_t count = 0;
  std::string_view rest = list;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view range = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    int64_t first = 0;
    int64_t last = 0;
    const char* end = range.data() + range.size();
    auto parsed = std::from_chars(range.data(), end, first);
    if (parsed.ec == std::errc() && parsed.ptr != end && *parsed.ptr == '-') {
      parsed = std::from_chars(parsed.ptr + 1, end, last);
    } else {
      last = first;
    }
    if (parsed.ec != std::errc() || parsed.ptr != end || last < first) {
      return Reading<int64_t>::Unknown(fmt::format("'{}' is no CPU list", list));
    }
    count += last - first + 1;
  }
  if (count == 0) return Reading<int64_t>::Unknown("the CPU list is empty");
  return Reading<int64_t>::Known(count);
}

HostInventory ReadHostInventory(const SysfsReader& sysfs) {
  HostInventory host;
  host.cpu = ReadCpus(sysfs);
  host.memory.total_kib = KibibytesOf(sysfs.ReadField("/proc/meminfo", "MemTotal"));
  host.memory.available_kib = KibibytesOf(sysfs.ReadField("/proc/meminfo", "MemAvailable"));
  host.numa_nodes = ReadNumaNodes(sysfs);
  if (host.numa_nodes.empty()) {
    host.numa_absent = "not exposed (no /sys/devices/system/node/node<N>)";
  }
  host.pci = ReadPciFunctions(sysfs);
  return host;
}

}  // namespace xfer::topology
