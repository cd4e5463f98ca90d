// What sysfs says about a network interface (/sys/class/net/<if>/...).
#ifndef XFER_TOPOLOGY_NETDEV_H_
#define XFER_TOPOLOGY_NETDEV_H_

#include <cstdint>
#include <optional>
#include <string>

#include "topology/reading.h"
#include "topology/sysfs_reader.h"

namespace xfer::topology {

struct NetdevReading {
  std::string name;
  Reading<int64_t> speed_mbps;  // Mb/s (10^6 bit/s); -1 and EINVAL are unknown
  Reading<int64_t> mtu;         // bytes
  Reading<std::string> duplex;
  Reading<std::string> operstate;
  // The resolved `device` link ("/sys/devices/pci0000:00/.../virtio1"),
  // where the PCIe walk starts; nullopt for a netdev without one (veth,
  // bridges), whose resolved path lies under /sys/devices/virtual.
  std::optional<std::string> device_path;
  // The driver's name (the `device/driver` link's last component), e.g.
  // "virtio_net"; "" when there is none.
  std::string driver;
};

NetdevReading ReadNetdevInfo(const SysfsReader& sysfs, const std::string& name);

}  // namespace xfer::topology

#endif  // XFER_TOPOLOGY_NETDEV_H_
