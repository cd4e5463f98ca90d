#include "topology/gpu_topology.h"

#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <sstream>

#include "topology/rdma_port.h"

namespace xfer::topology {
namespace {

std::vector<std::string_view> Components(std::string_view path) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    const size_t slash = path.find('/');
    const std::string_view part = path.substr(0, slash);
    if (!part.empty()) parts.push_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

// "0000:1b:00.0": a PCI function's name in sysfs.
bool IsPciAddress(std::string_view part) {
  if (part.size() != 12 || part[4] != ':' || part[7] != ':' || part[10] != '.') return false;
  constexpr size_t kHexDigits[] = {0, 1, 2, 3, 5, 6, 8, 9, 11};
  for (size_t i : kHexDigits) {
    if (std::isxdigit(static_cast<unsigned char>(part[i])) == 0) return false;
  }
  return true;
}

// Where the path's root complex ("pci0000:16") is among its components.
std::optional<size_t> RootIndex(const std::vector<std::string_view>& parts) {
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].starts_with("pci") && parts[i].size() > 3) return i;
  }
  return std::nullopt;
}

Reading<uint64_t> ReadBar1(const SysfsReader& sysfs, const std::string& address) {
  const std::string file = fmt::format("/sys/bus/pci/devices/{}/resource", address);
  const Reading<std::string> resource = sysfs.ReadAll(file);
  if (!resource.known()) return Reading<uint64_t>::Unknown(resource.unknown_reason);
  std::istringstream in(*resource.value);
  std::string line;
  for (int i = 0; i <= 1; ++i) {
    if (!std::getline(in, line)) return Reading<uint64_t>::Unknown(file + " has no BAR1 line");
  }
  std::istringstream fields(line);
  uint64_t start = 0;
  uint64_t end = 0;
  if (!(fields >> std::hex >> start >> end)) {
    return Reading<uint64_t>::Unknown(fmt::format("{}: BAR1 line '{}' does not parse", file, line));
  }
  if (start == 0 && end == 0) return Reading<uint64_t>::Unknown("BAR1 is not assigned");
  if (end < start) return Reading<uint64_t>::Unknown(fmt::format("{}: BAR1 ends before it starts", file));
  return Reading<uint64_t>::Known(end - start + 1);
}

Reading<std::string> ReadPeermem(const SysfsReader& sysfs) {
  const Reading<std::string> version = sysfs.ReadText("/sys/module/nvidia_peermem/version");
  if (version.known()) return Reading<std::string>::Known("loaded (version " + *version.value + ")");
  if (sysfs.Exists("/sys/module/nvidia_peermem")) return Reading<std::string>::Known("loaded");
  return Reading<std::string>::Known(
      "not loaded: GPUDirect RDMA then needs dma-buf (ibv_reg_dmabuf_mr with the open kernel "
      "modules)");
}

}  // namespace

std::optional<std::string> PciFunctionPath(const std::string& path) {
  const std::vector<std::string_view> parts = Components(path);
  std::optional<size_t> last;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (IsPciAddress(parts[i])) last = i;
  }
  if (!last) return std::nullopt;
  std::string out;
  for (size_t i = 0; i <= *last; ++i) {
    out += '/';
    out.append(parts[i]);
  }
  return out;
}

PcieDistance DistanceBetween(std::string_view path_a, std::string_view path_b, int64_t numa_a,
                             int64_t numa_b) {
  const std::vector<std::string_view> a = Components(path_a);
  const std::vector<std::string_view> b = Components(path_b);
  const std::optional<size_t> root_a = RootIndex(a);
  const std::optional<size_t> root_b = RootIndex(b);
  if (!root_a || !root_b) {
    return {fmt::format("unknown: {} is under no PCI root complex", !root_a ? path_a : path_b), "",
            Tier::kUnknown};
  }
  if (a[*root_a] != b[*root_b]) {
    if (numa_a >= 0 && numa_b >= 0) {
      if (numa_a == numa_b) {
        return {fmt::format("on NUMA node {}, across root complexes ({} and {})", numa_a,
                            a[*root_a], b[*root_b]),
                "NODE", Tier::kSameNode};
      }
      return {fmt::format("across NUMA nodes ({} and {})", numa_a, numa_b), "SYS",
              Tier::kAcrossNodes};
    }
    return {fmt::format("across root complexes ({} and {}); NUMA nodes unknown", a[*root_a],
                        b[*root_b]),
            "NODE or SYS", Tier::kUnknown};
  }
  // Functions below the root complex that both paths pass through.
  size_t shared = 0;
  while (*root_a + 1 + shared < a.size() && *root_b + 1 + shared < b.size() &&
         a[*root_a + 1 + shared] == b[*root_b + 1 + shared]) {
    ++shared;
  }
  if (shared == 0) {
    return {fmt::format("on one root complex ({}), through its host bridge", a[*root_a]), "PHB",
            Tier::kSameRootComplex};
  }
  const std::string_view common = a[*root_a + shared];
  if (shared == 1) {
    return {fmt::format("below one root port ({})", common), "PIX/PXB", Tier::kSameSwitch};
  }
  return {fmt::format("behind one PCIe switch ({})", common), "PIX/PXB", Tier::kSameSwitch};
}

std::vector<GpuTopology> ReadGpuTopology(const SysfsReader& sysfs, const HostInventory& host) {
  // The RDMA devices' PCI functions, and why each that has none is left out.
  struct Nic {
    std::string name;
    std::string path;
    int64_t numa = -1;
  };
  std::vector<Nic> nics;
  std::vector<std::string> without_pci;
  for (const std::string& device : ListRdmaDevices(sysfs)) {
    const auto resolved = sysfs.Resolve(fmt::format("/sys/class/infiniband/{}/device", device));
    const auto function = resolved ? PciFunctionPath(*resolved) : std::nullopt;
    if (!function) {
      without_pci.push_back(device);
      continue;
    }
    const Reading<int64_t> numa = sysfs.ReadInteger(*function + "/numa_node");
    nics.push_back({device, *function, numa.known() ? *numa.value : -1});
  }
  std::vector<GpuTopology> gpus;
  for (const PciFunction& function : host.pci) {
    if (function.role != "GPU") continue;
    GpuTopology gpu;
    gpu.address = function.address;
    gpu.vendor_name = function.vendor_name;
    gpu.bar1_bytes = ReadBar1(sysfs, function.address);
    gpu.peermem = ReadPeermem(sysfs);
    const auto path = sysfs.Resolve(fmt::format("/sys/bus/pci/devices/{}", function.address));
    const int64_t numa = function.path.numa_node.known() ? *function.path.numa_node.value : -1;
    for (const Nic& nic : nics) {
      gpu.nics.push_back(
          {nic.name, path ? DistanceBetween(*path, nic.path, numa, nic.numa)
                          : PcieDistance{"unknown: the GPU's sysfs link does not resolve", ""}});
    }
    if (nics.empty()) {
      gpu.no_nic = without_pci.empty()
                       ? "no RDMA device on this host"
                       : fmt::format("no RDMA device with a PCI function ({} {} software RDMA)",
                                     fmt::join(without_pci, ", "),
                                     without_pci.size() == 1 ? "is" : "are");
    }
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

}  // namespace xfer::topology
