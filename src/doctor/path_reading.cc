#include "doctor/path_reading.h"

#include <fmt/format.h>

namespace xfer::doctor {

PathReading ReadPath(const topology::SysfsReader& sysfs, const std::string& device, int port) {
  PathReading path;
  path.port = topology::ReadRdmaPort(sysfs, device, port);
  if (path.port.netdev.known()) path.netdev = topology::ReadNetdevInfo(sysfs, *path.port.netdev.value);
  if (path.port.software) {
    if (path.netdev) {
      path.pcie = topology::ReadPciePath(
          sysfs, path.netdev->device_path,
          fmt::format("no PCIe link on this path ({} is software RDMA on {}, a virtual netdev with no device)",
                      device, path.netdev->name));
    } else {
      path.pcie = topology::ReadPciePath(sysfs, std::nullopt,
                               fmt::format("no PCIe link known: the netdev under {} is unknown", device));
    }
    return path;
  }
  path.pcie = topology::ReadPciePath(sysfs, sysfs.Resolve(fmt::format("/sys/class/infiniband/{}/device", device)),
                           fmt::format("no PCIe link on this path (/sys/class/infiniband/{}/device is missing)",
                                       device));
  return path;
}

}  // namespace xfer::doctor
