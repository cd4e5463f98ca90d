// Everything the doctor reads for one RDMA (device, port): the port, the
// netdev under it (RoCE) and the PCIe path from the NIC to the root port.
#ifndef XFER_DOCTOR_PATH_READING_H_
#define XFER_DOCTOR_PATH_READING_H_

#include <optional>
#include <string>

#include "topology/netdev.h"
#include "topology/pcie_path.h"
#include "topology/rdma_port.h"
#include "topology/sysfs_reader.h"

namespace xfer::doctor {

struct PathReading {
  topology::RdmaPortReading port;
  std::optional<topology::NetdevReading> netdev;  // RoCE ports whose netdev is known
  topology::PciePath pcie;
};

// The PCIe walk starts at the RDMA device's `device` link for hardware, and
// at the netdev's for software RDMA (rxe's own device link is virtual).
PathReading ReadPath(const topology::SysfsReader& sysfs, const std::string& device, int port);

}  // namespace xfer::doctor

#endif  // XFER_DOCTOR_PATH_READING_H_
