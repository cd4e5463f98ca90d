// The PCIe path from a device up to its root port, read from sysfs.
//
// Starts at a resolved device path (a netdev's or RDMA device's `device`
// link), walks up to the first directory with current_link_speed (a
// virtio-net `device` link points at .../0000:01:00.0/virtio1), then reads
// that function and every bridge above it that has a link. A path with no PCI
// function (veth, rxe on veth) yields no hops and says so; none is invented.
#ifndef XFER_TOPOLOGY_PCIE_PATH_H_
#define XFER_TOPOLOGY_PCIE_PATH_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topology/reading.h"
#include "topology/sysfs_reader.h"

namespace xfer::topology {

struct PcieLinkState {
  Reading<double> speed_gts;  // GT/s, from "16.0 GT/s PCIe"
  Reading<int64_t> width;     // lanes
};

struct PcieHop {
  std::string address;  // "0000:03:00.0"
  std::string path;     // "/sys/devices/pci0000:00/0000:00:1c.0/0000:03:00.0"
  Reading<int64_t> vendor;
  Reading<int64_t> device_id;
  PcieLinkState current;
  PcieLinkState max;
  // "virtio" (vendor 0x1af4), "QEMU PCIe root port" (0x1b36 0x000c),
  // "QEMU/Red Hat" (other 0x1b36), "" for real hardware.
  std::string virtual_label;
  bool is_virtual() const { return !virtual_label.empty(); }
};

struct PciePath {
  std::vector<PcieHop> hops;  // [0] the device's own function, then upward
  Reading<int64_t> numa_node;  // of hops[0]; -1 is unknown
  // Set when hops is empty: why there is no PCIe link on this path.
  std::string absent_reason;
};

// Parses "5.0 GT/s PCIe", "5 GT/s", "2.5 GT/s"; unknown for "Unknown" and
// anything else.
Reading<double> ParsePcieSpeed(const std::string& text);

// `device_path`: a resolved system path, or nullopt when the device has no
// `device` link (then `why_absent` becomes absent_reason).
PciePath ReadPciePath(const SysfsReader& sysfs, const std::optional<std::string>& device_path,
                      const std::string& why_absent);

}  // namespace xfer::topology

#endif  // XFER_TOPOLOGY_PCIE_PATH_H_
