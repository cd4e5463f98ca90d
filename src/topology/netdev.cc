#include "topology/netdev.h"

#include <fmt/format.h>

namespace xfer::topology {

NetdevReading ReadNetdevInfo(const SysfsReader& sysfs, const std::string& name) {
  const std::string dir = "/sys/class/net/" + name;
  NetdevReading reading;
  reading.name = name;
  reading.operstate = sysfs.ReadText(dir + "/operstate");
  reading.speed_mbps = sysfs.ReadInteger(dir + "/speed");
  if (!reading.speed_mbps.known() && reading.operstate.known() && *reading.operstate.value == "down") {
    reading.speed_mbps.unknown_reason += "; the interface is down (its speed reads EINVAL until it is up)";
  }
  reading.mtu = sysfs.ReadInteger(dir + "/mtu");
  reading.duplex = sysfs.ReadText(dir + "/duplex");
  reading.device_path = sysfs.Resolve(dir + "/device");
  if (const auto driver = sysfs.Resolve(dir + "/device/driver")) reading.driver = BaseName(*driver);
  return reading;
}

}  // namespace xfer::topology
