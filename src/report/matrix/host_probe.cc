#include "report/matrix/host_probe.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <sstream>

namespace xfer::report {
namespace {

constexpr std::string_view kUnknown = "unknown";

std::string_view Trim(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const size_t last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

// The value of the first "key : value" line whose key is `key` exactly and
// whose value is not blank; "" when none.
std::string_view CpuinfoValue(std::string_view cpuinfo, std::string_view key) {
  while (!cpuinfo.empty()) {
    const size_t end = cpuinfo.find('\n');
    const std::string_view line = cpuinfo.substr(0, end);
    cpuinfo = end == std::string_view::npos ? std::string_view{} : cpuinfo.substr(end + 1);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || Trim(line.substr(0, colon)) != key) continue;
    const std::string_view value = Trim(line.substr(colon + 1));
    if (!value.empty()) return value;
  }
  return {};
}

std::string ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Hostname() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0 || name[0] == '\0') {
    return std::string(kUnknown);
  }
  return name.data();
}

std::string KernelRelease() {
  utsname uts{};
  if (::uname(&uts) != 0 || uts.release[0] == '\0') return std::string(kUnknown);
  return uts.release;
}

uint32_t OnlineCpus() {
  const long count = ::sysconf(_SC_NPROCESSORS_ONLN);
  return count > 0 ? static_cast<uint32_t>(count) : 0;
}

}  // namespace

std::string CpuModelFromCpuinfo(std::string_view cpuinfo) {
  for (std::string_view key : {"model name", "Hardware", "cpu model", "cpu", "uarch"}) {
    const std::string_view value = CpuinfoValue(cpuinfo, key);
    if (!value.empty()) return std::string(value);
  }
  const std::string_view implementer = CpuinfoValue(cpuinfo, "CPU implementer");
  if (implementer.empty()) return std::string(kUnknown);
  std::string model = "CPU implementer " + std::string(implementer);
  const std::string_view part = CpuinfoValue(cpuinfo, "CPU part");
  if (!part.empty()) model += " part " + std::string(part);
  return model;
}

#if XFER_WITH_VERBS
std::vector<matrix::RdmaPortFingerprint> RdmaPortsFromDevices(
    std::span<const verbs::DeviceInfo> devices) {
  constexpr std::string_view kStatePrefix = "PORT_";
  std::vector<matrix::RdmaPortFingerprint> ports;
  for (const verbs::DeviceInfo& device : devices) {
    for (const verbs::PortInfo& port : device.ports) {
      std::string_view state = port.StateName();
      if (state.starts_with(kStatePrefix)) state.remove_prefix(kStatePrefix.size());
      ports.push_back({device.name, port.number, std::string(state),
                       std::string(verbs::LinkLayerName(port.link_layer)), port.LinkGbps()});
    }
  }
  return ports;
}
#endif

matrix::HostFingerprint ProbeHost(std::string_view xfer_version) {
  matrix::HostFingerprint host;
  host.hostname = Hostname();
  host.kernel = KernelRelease();
  host.cpu_model = CpuModelFromCpuinfo(ReadFile("/proc/cpuinfo"));
  host.cpu_count = OnlineCpus();
#if XFER_WITH_VERBS
  const Result<std::vector<verbs::DeviceInfo>> devices = verbs::ListDevices();
  if (devices.ok()) host.rdma = RdmaPortsFromDevices(*devices);
#endif
  host.xfer_version = xfer_version.empty() ? std::string(kUnknown) : std::string(xfer_version);
  return host;
}

}  // namespace xfer::report
