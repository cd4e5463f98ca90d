#include "doctor/verbs_ceiling.h"

#include <fmt/format.h>

#include "doctor/ceiling.h"
#include "doctor/path_reading.h"

namespace xfer::doctor {

VerbsCeiling VerbsCeilingFor(const std::string& device, int port, int mtu_bytes, const std::string& sysfs_root) {
  const topology::SysfsReader sysfs(sysfs_root);
  const std::string port_dir = fmt::format("/sys/class/infiniband/{}/ports/{}", device, port);
  if (!sysfs.Exists(port_dir)) {
    return {topology::Reading<double>::Unknown(fmt::format("{} does not exist under {}", port_dir, sysfs_root)), ""};
  }
  CeilingOptions options;
  if (mtu_bytes > 0) options.run_mtu_bytes = mtu_bytes;
  const Ceiling ceiling = ComputeCeiling(ReadPath(sysfs, device, port), options);
  std::string source = ceiling.source;
  if (!ceiling.incomplete.empty()) source += "; upper bound: " + ceiling.incomplete;
  return {ceiling.bytes_per_s, source};
}

}  // namespace xfer::doctor
