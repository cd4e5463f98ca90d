// Device and port discovery: what `ibv_devinfo -v` and `ibstatus` show,
// as plain values. Query-only: nothing here creates a PD, CQ or QP, so
// listing devices never disturbs a run on them.
//
// The structs are copyable snapshots taken at query time; a port that
// goes down afterwards is not reflected. The decoders (LaneGbps,
// LaneCount, the *Name functions) are pure and thread-safe.
#ifndef XFER_VERBS_DEVICE_CATALOG_H_
#define XFER_VERBS_DEVICE_CATALOG_H_

#include <infiniband/verbs.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "verbs/mtu.h"
#include "xfer/status.h"

namespace xfer::verbs {

// ibv_gid_entry::gid_type. kIb is also what a RoCE v1 GID reported by an
// old kernel looks like; the kernel reports kRoceV1 for "IB/RoCE v1" GIDs
// on an Ethernet port.
enum class GidType { kIb, kRoceV1, kRoceV2 };

// ibv_port_attr::link_layer. kUnspecified is what old IB drivers report;
// libibverbs and perftest treat it as InfiniBand.
enum class LinkLayer { kUnspecified, kInfiniBand, kEthernet };

// One valid (non-zero) entry of a port's GID table.
struct GidEntry {
  int index = 0;
  std::array<uint8_t, 16> raw{};  // network byte order, as in ibv_gid::raw
  GidType type = GidType::kIb;
  std::string netdev;  // the RoCE netdev ("vethA"); "" when none (IB)

  // ::ffff:a.b.c.d (RFC 4291 IPv4-mapped), the form a RoCE GID of an IPv4
  // address takes.
  bool IsIpv4Mapped() const;
  // fe80::/10, or an IPv4-mapped 169.254.0.0/16 address.
  bool IsLinkLocal() const;
  // All 16 bytes zero: an unused table slot.
  bool IsZero() const;
  // inet_ntop(AF_INET6) text: "::ffff:169.254.77.1", "fe80::b0cd:1ff:fe2a:3b4c".
  std::string ToString() const;
};

struct PortInfo {
  uint8_t number = 1;
  ibv_port_state state = IBV_PORT_NOP;
  uint8_t phys_state = 0;  // IBTA PortPhysicalState: 2 POLLING, 3 DISABLED, 5 LINK_UP
  ibv_mtu active_mtu = IBV_MTU_1024;
  ibv_mtu max_mtu = IBV_MTU_4096;
  double lane_gbps = 0;  // signalling rate of one lane, 10^9 bit/s (LaneGbps)
  int lanes = 0;         // LaneCount(active_width); 0 when unknown
  LinkLayer link_layer = LinkLayer::kUnspecified;
  uint16_t lid = 0;
  uint16_t sm_lid = 0;
  uint8_t lmc = 0;
  int gid_table_len = 0;       // ibv_port_attr::gid_tbl_len: the valid index range
  std::vector<GidEntry> gids;  // valid non-zero entries, ascending index

  // "PORT_ACTIVE", "PORT_DOWN", ... as ibv_devinfo prints them.
  std::string_view StateName() const;
  // "LINK_UP", "DISABLED", "POLLING", ... as ibv_devinfo prints them.
  std::string_view PhysStateName() const;
  uint32_t ActiveMtuBytes() const;  // MtuBytes(active_mtu)
  uint32_t MaxMtuBytes() const;     // MtuBytes(max_mtu)
  // lane_gbps * lanes: the signalling rate in Gb/s (10^9 bit/s), before
  // line coding; 0 when either is unknown.
  double LinkGbps() const;
};

struct DeviceInfo {
  std::string name;       // "mlx5_0", "rxe0"
  std::string node_guid;  // "xxxx:xxxx:xxxx:xxxx", host order, as ibv_devinfo
  std::string fw_ver;     // "" when the device reports none
  std::string transport;  // TransportName(ibv_device::transport_type)
  uint32_t vendor_id = 0;
  uint32_t vendor_part_id = 0;
  uint32_t hw_ver = 0;
  int max_qp = 0;
  int max_qp_wr = 0;
  int max_sge = 0;
  int max_cqe = 0;
  int max_mr = 0;
  int max_qp_rd_atom = 0;       // responder depth: incoming RDMA READs/atomics per QP
  int max_qp_init_rd_atom = 0;  // initiator depth: outstanding READs/atomics per QP
  uint64_t max_mr_size = 0;     // bytes
  ibv_atomic_cap atomic_cap = IBV_ATOMIC_NONE;
  std::vector<PortInfo> ports;  // ports 1..phys_port_cnt, in order
  // ibv_query_device's answer as is: perftest's parameter negotiation sends
  // this struct raw, so a perftest-compatible peer needs every byte.
  ibv_device_attr raw_attr{};

  // The port numbered `number`, or nullptr if the device has none.
  const PortInfo* FindPort(uint8_t number) const;
};

// Every device libibverbs sees, in ibv_get_device_list's order, each opened
// only for the query and closed again. An empty vector means there is no
// device (also when the kernel lacks RDMA support); that is not an error.
// Thread-safe (libibverbs' device list is).
// Errors: IoError naming the device and errno when a listed device cannot be
// opened or queried (e.g. EACCES on /dev/infiniband/uverbsN), or when
// ibv_get_device_list fails for another reason than missing kernel support.
Result<std::vector<DeviceInfo>> ListDevices();

// The same facts for a device the caller has already opened (the
// benchmarks and transports hold their own context). `context` is borrowed
// and must be non-null. Thread-safe as the underlying ibv_query_* calls are.
// Errors: IoError naming the device, the failing call and errno.
Result<DeviceInfo> QueryDevice(ibv_context* context);

// Why libibverbs sees no device on this machine, in two plain sentences
// derived from the files under `root` (a real or fake filesystem root):
// /sys/class/infiniband, ib_core / ib_uverbs in /sys/module,
// CONFIG_INFINIBAND in /boot/config-<release> (release from
// /proc/sys/kernel/osrelease, else uname), /dev/infiniband/uverbs*. The last
// sentence points to the Soft-RoCE VM (`scripts/softroce-vm -- xfer
// devices`). Never fails; unreadable files count as absent. Thread-safe.
std::string ExplainNoDevices(const std::filesystem::path& root = "/");

// Decoders for ibv_port_attr and ibv_device fields, exposed for reports and
// tests. Unknown codes give 0 / an "invalid ..." name, never a failure.
// (MtuBytes is in verbs/mtu.h.)
//
// Lane signalling rate in Gb/s for an active_speed code: 1 SDR 2.5, 2 DDR 5,
// 4 QDR 10, 8 FDR10 10.3125, 16 FDR 14.0625, 32 EDR 25.78125, 64 HDR
// 53.125, 128 NDR 106.25, 256 XDR 212.5 (active_speed_ex only).
double LaneGbps(uint32_t active_speed);
// Lanes for an active_width code: 1 1x, 2 4x, 4 8x, 8 12x, 16 2x.
int LaneCount(uint8_t active_width);
// "InfiniBand", "iWARP", "usNIC", "usNIC UDP", "unspecified".
std::string_view TransportName(ibv_transport_type transport);
// "InfiniBand", "Ethernet", "unspecified".
std::string_view LinkLayerName(LinkLayer link_layer);
// "IB", "RoCE v1", "RoCE v2".
std::string_view GidTypeName(GidType type);
// "ATOMIC_NONE", "ATOMIC_HCA", "ATOMIC_GLOB".
std::string_view AtomicCapName(ibv_atomic_cap cap);

}  // namespace xfer::verbs

#endif  // XFER_VERBS_DEVICE_CATALOG_H_
