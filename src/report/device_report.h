// `xfer devices`: the RDMA devices, their ports and GID tables, as text
// (what `ibv_devinfo -v` and `ibstatus` show, in one listing) and as the
// --json document. Stateless and thread-safe; the spans are read during the
// call only.
//
// Text layout, per device (one blank line between devices):
//
//   hca_id: rxe0
//       transport:            InfiniBand
//       node_guid:            b0cd:01ff:fe2a:3b4c
//       ...                   (fw_ver, vendor/part/hw, limits, atomic_cap)
//       port 1:
//           state:            PORT_ACTIVE (4)
//           phys_state:       LINK_UP (5)
//           active_mtu:       1024 bytes
//           max_mtu:          4096 bytes
//           rate:             2.5 Gb/s × 1 = 2.5 Gb/s (10^9 bit/s)
//           link_layer:       Ethernet
//           gid_tbl_len:      1024
//           GID[  0]:         fe80::b0cd:1ff:fe2a:3b4c, RoCE v2, link-local, netdev vethA
//
// IB ports also show port_lid, sm_lid and port_lmc.
//
// JSON layout (units named in the keys, and again in "units"):
//
//   { "units": { "lane_gbps": "Gb/s (10^9 bit/s)", ... },
//     "devices": [ { "name": "rxe0", "transport": "InfiniBand",
//       "node_guid": "...", "fw_ver": "...", "vendor_id": 16777215,
//       "vendor_part_id": 0, "hw_ver": 0, "max_qp": ..., "max_qp_wr": ...,
//       "max_sge": ..., "max_cqe": ..., "max_mr": ..., "max_qp_rd_atom": ...,
//       "max_qp_init_rd_atom": ..., "max_mr_size_bytes": ...,
//       "atomic_cap": "ATOMIC_HCA",
//       "ports": [ { "port": 1, "state": "PORT_ACTIVE", "phys_state":
//         "LINK_UP", "active_mtu_bytes": 1024, "max_mtu_bytes": 4096,
//         "lane_gbps": 2.5, "lanes": 1, "link_gbps": 2.5,
//         "link_layer": "Ethernet", "lid": 0, "sm_lid": 0, "lmc": 0,
//         "gid_table_len": 1024,
//         "gids": [ { "index": 1, "gid": "::ffff:169.254.77.1",
//           "type": "RoCE v2", "ipv4_mapped": true, "link_local": true,
//           "netdev": "vethA" } ] } ] } ] }
#ifndef XFER_REPORT_DEVICE_REPORT_H_
#define XFER_REPORT_DEVICE_REPORT_H_

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "verbs/device_catalog.h"

namespace xfer::report {

// The whole listing; each line ends in '\n'. Empty for no devices.
std::string DeviceReportText(std::span<const verbs::DeviceInfo> devices);

// "25.78125 Gb/s × 4 = 103.125 Gb/s (10^9 bit/s)", or "unknown" when the
// port reports no speed or width.
std::string LinkRateText(const verbs::PortInfo& port);

// The --json document above (write it with WriteJsonFile).
nlohmann::json DeviceReportJson(std::span<const verbs::DeviceInfo> devices);

}  // namespace xfer::report

#endif  // XFER_REPORT_DEVICE_REPORT_H_
