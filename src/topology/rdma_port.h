// What sysfs says about one RDMA port
// (/sys/class/infiniband/<dev>/ports/<p>/...), and which netdev it sits on.
#ifndef XFER_TOPOLOGY_RDMA_PORT_H_
#define XFER_TOPOLOGY_RDMA_PORT_H_

#include <string>
#include <vector>

#include "topology/reading.h"
#include "topology/sysfs_reader.h"

namespace xfer::topology {

// The port's rate file, "%d%s Gb/sec (%dX%s)", e.g. "40 Gb/sec (4X QDR)".
struct PortRate {
  double gbps = 0;          // the number before "Gb/sec" (signalling for SDR..QDR)
  int width = 0;            // the lanes, 4 for "4X"; 0 when absent
  std::string speed_name;   // "QDR", "EDR", ...; "" when absent ("10 Gb/sec (4X)")
};

// Parses a rate file's text; unknown when it does not have that shape.
Reading<PortRate> ParsePortRate(const std::string& text);

// How a RoCE port's packets are framed, from its GID types: what the
// doctor's goodput model charges per packet (doctor/goodput.h).
enum class RoceEncapsulation { kV2Ipv4, kV2Ipv6, kV1 };

struct RdmaPortReading {
  std::string device;
  int port = 1;
  Reading<std::string> state;       // "4: ACTIVE"
  Reading<std::string> phys_state;  // "5: LinkUp"
  Reading<std::string> rate_text;   // as the file says
  Reading<PortRate> rate;
  Reading<std::string> link_layer;  // "Ethernet", "InfiniBand"
  // Software RDMA (rxe, siw): the device has a `parent` file naming its
  // netdev, and no hardware of its own.
  bool software = false;
  // The netdev: gid_attrs/ndevs/0, else `parent`, else device/net/<if>.
  // Unknown on IB ports, which have none.
  Reading<std::string> netdev;
  // gid_attrs/types/<i> values that are set ("RoCE v2", "IB/RoCE v1"), and
  // the encapsulation the ceiling uses: RoCEv2/IPv4 when some RoCE v2 GID is
  // IPv4-mapped (::ffff:a.b.c.d), else RoCEv2/IPv6 when there is a v2 GID,
  // else RoCEv1. Unknown when no GID type is readable. (Which GID a run
  // used, -x, is not in sysfs.)
  std::vector<std::string> gid_types;
  Reading<RoceEncapsulation> encapsulation;

  bool is_ethernet() const { return link_layer.known() && *link_layer.value == "Ethernet"; }
};

// The device names under /sys/class/infiniband, sorted.
std::vector<std::string> ListRdmaDevices(const SysfsReader& sysfs);
// The port numbers under /sys/class/infiniband/<device>/ports, ascending.
std::vector<int> ListRdmaPorts(const SysfsReader& sysfs, const std::string& device);

RdmaPortReading ReadRdmaPort(const SysfsReader& sysfs, const std::string& device, int port);

}  // namespace xfer::topology

#endif  // XFER_TOPOLOGY_RDMA_PORT_H_
