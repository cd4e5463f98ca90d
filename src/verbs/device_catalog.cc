#include "verbs/device_catalog.h"

#include <arpa/inet.h>
#include <endian.h>
#include <fmt/format.h>
#include <net/if.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "verbs/ib_handles.h"

namespace xfer::verbs {
namespace {

namespace fs = std::filesystem;

Status VerbsError(std::string_view device, std::string_view call, int err) {
  return IoError(fmt::format("{}: {}: {}", device, call, std::strerror(err)));
}

// rdma-core >= 50 reports speeds above NDR in active_speed_ex (with
// active_speed 0); older headers (44 on Debian 12) lack the field.
template <typename PortAttr>
uint32_t ActiveSpeed(const PortAttr& attr) {
  if constexpr (requires { attr.active_speed_ex; }) {
    if (attr.active_speed_ex != 0) return attr.active_speed_ex;
  }
  return attr.active_speed;
}

LinkLayer ToLinkLayer(uint8_t link_layer) {
  switch (link_layer) {
    case IBV_LINK_LAYER_INFINIBAND: return LinkLayer::kInfiniBand;
    case IBV_LINK_LAYER_ETHERNET: return LinkLayer::kEthernet;
    default: return LinkLayer::kUnspecified;
  }
}

GidType ToGidType(uint32_t gid_type) {
  switch (gid_type) {
    case IBV_GID_TYPE_ROCE_V1: return GidType::kRoceV1;
    case IBV_GID_TYPE_ROCE_V2: return GidType::kRoceV2;
    default: return GidType::kIb;
  }
}

// ibv_devinfo's guid_str: the big-endian GUID as four host-order groups.
std::string GuidText(__be64 guid) {
  const uint64_t value = be64toh(guid);
  return fmt::format("{:04x}:{:04x}:{:04x}:{:04x}", (value >> 48) & 0xffff,
                     (value >> 32) & 0xffff, (value >> 16) & 0xffff,
                     value & 0xffff);
}

std::string NetdevName(uint32_t ifindex) {
  if (ifindex == 0) return {};
  char name[IF_NAMESIZE] = {};
  if (::if_indextoname(ifindex, name) == nullptr) {
    return fmt::format("ifindex {}", ifindex);
  }
  return name;
}

PortInfo ToPortInfo(uint8_t number, const ibv_port_attr& attr) {
  PortInfo port;
  port.number = number;
  port.state = attr.state;
  port.phys_state = attr.phys_state;
  port.active_mtu = attr.active_mtu;
  port.max_mtu = attr.max_mtu;
  port.lane_gbps = LaneGbps(ActiveSpeed(attr));
  port.lanes = LaneCount(attr.active_width);
  port.link_layer = ToLinkLayer(attr.link_layer);
  port.lid = attr.lid;
  port.sm_lid = attr.sm_lid;
  port.lmc = attr.lmc;
  port.gid_table_len = attr.gid_tbl_len;
  return port;
}

// Fills every port's `gids` from one ibv_query_gid_table call, which
// returns only the valid entries of all ports.
Status QueryGids(ibv_context* context, const std::string& device,
                 std::vector<PortInfo>& ports) {
  size_t capacity = 0;
  for (const PortInfo& port : ports) {
    capacity += static_cast<size_t>(std::max(port.gid_table_len, 0));
  }
  if (capacity == 0) return Status::Ok();
  std::vector<ibv_gid_entry> entries(capacity);
  const ssize_t count =
      ibv_query_gid_table(context, entries.data(), entries.size(), 0);
  if (count < 0) {
    return VerbsError(device, "ibv_query_gid_table", static_cast<int>(-count));
  }
  entries.resize(static_cast<size_t>(count));
  for (const ibv_gid_entry& entry : entries) {
    GidEntry gid;
    gid.index = static_cast<int>(entry.gid_index);
    std::copy(std::begin(entry.gid.raw), std::end(entry.gid.raw),
              gid.raw.begin());
    gid.type = ToGidType(entry.gid_type);
    gid.netdev = NetdevName(entry.ndev_ifindex);
    if (gid.IsZero()) continue;
    for (PortInfo& port : ports) {
      if (port.number == entry.port_num) port.gids.push_back(std::move(gid));
    }
  }
  for (PortInfo& port : ports) {
    std::sort(port.gids.begin(), port.gids.end(),
              [](const GidEntry& a, const GidEntry& b) {
                return a.index < b.index;
              });
  }
  return Status::Ok();
}

// --- ExplainNoDevices helpers: every probe treats an error as "absent". ---

bool Exists(const fs::path& path) {
  std::error_code error;
  return fs::exists(path, error);
}

// Entry names of `dir` that start with `prefix`, sorted; empty if unreadable.
std::vector<std::string> Entries(const fs::path& dir, std::string_view prefix) {
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end;
       it.increment(error)) {
    std::string name = it->path().filename().string();
    if (name.starts_with(prefix)) names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string KernelRelease(const fs::path& root) {
  std::ifstream in(root / "proc/sys/kernel/osrelease");
  std::string release;
  if (in && std::getline(in, release) && !release.empty()) return release;
  utsname names{};
  if (::uname(&names) == 0) return names.release;
  return "unknown";
}

// The CONFIG_INFINIBAND line of the kernel config: "y", "m", "n" (the
// "# ... is not set" form), or "" when the file is unreadable or silent.
std::string ConfigInfiniband(const fs::path& config) {
  std::ifstream in(config);
  for (std::string line; in && std::getline(in, line);) {
    if (line == "# CONFIG_INFINIBAND is not set") return "n";
    if (line.starts_with("CONFIG_INFINIBAND=")) {
      return line.substr(std::string_view("CONFIG_INFINIBAND=").size());
    }
  }
  return "";
}

constexpr std::string_view kSoftRoceHint =
    " To try xfer's verbs path without an RDMA NIC, run it in the Soft-RoCE "
    "VM: scripts/softroce-vm -- xfer devices";

// The first sentence when the kernel registered no RDMA device.
std::string NoKernelDevice(const fs::path& root) {
  const std::string release = KernelRelease(root);
  const fs::path config = fs::path("/boot") / ("config-" + release);
  const std::string setting = ConfigInfiniband(root / config.relative_path());
  const bool ib_core = Exists(root / "sys/module/ib_core");
  const bool ib_uverbs = Exists(root / "sys/module/ib_uverbs");
  if (setting == "n") {
    return fmt::format(
        "libibverbs found no RDMA device: the running kernel ({}) has no "
        "RDMA support (CONFIG_INFINIBAND is not set in {}), so no RDMA "
        "device can appear on this machine.",
        release, config.string());
  }
  if (ib_core) {
    return fmt::format(
        "libibverbs found no RDMA device: the kernel's RDMA core is loaded "
        "(ib_core{}) but no device is registered in /sys/class/infiniband "
        "(no RDMA NIC driver is bound and no Soft-RoCE link was added with "
        "'rdma link add rxe0 type rxe netdev IFACE').",
        ib_uverbs ? ", ib_uverbs" : "");
  }
  if (setting == "m" || setting == "y") {
    return fmt::format(
        "libibverbs found no RDMA device: the running kernel ({}) is built "
        "with RDMA support (CONFIG_INFINIBAND={}) but ib_core is not loaded "
        "and /sys/class/infiniband does not exist (no RDMA NIC driver is "
        "loaded; try 'modprobe ib_uverbs' and a driver such as rdma_rxe).",
        release, setting);
  }
  return fmt::format(
      "libibverbs found no RDMA device: the running kernel ({}) has no RDMA "
      "support loaded (no /sys/class/infiniband, no ib_core or ib_uverbs in "
      "/sys/module{}).",
      release,
      setting.empty() ? fmt::format(", {} not readable", config.string())
                      : "");
}

}  // namespace

bool GidEntry::IsIpv4Mapped() const {
  for (size_t i = 0; i < 10; ++i) {
    if (raw[i] != 0) return false;
  }
  return raw[10] == 0xff && raw[11] == 0xff;
}

bool GidEntry::IsLinkLocal() const {
  if (raw[0] == 0xfe && (raw[1] & 0xc0) == 0x80) return true;
  return IsIpv4Mapped() && raw[12] == 169 && raw[13] == 254;
}

bool GidEntry::IsZero() const {
  return std::all_of(raw.begin(), raw.end(), [](uint8_t b) { return b == 0; });
}

std::string GidEntry::ToString() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (::inet_ntop(AF_INET6, raw.data(), text, sizeof(text)) == nullptr) {
    return "invalid GID";
  }
  return text;
}

std::string_view PortInfo::StateName() const {
  switch (state) {
    case IBV_PORT_NOP: return "PORT_NOP";
    case IBV_PORT_DOWN: return "PORT_DOWN";
    case IBV_PORT_INIT: return "PORT_INIT";
    case IBV_PORT_ARMED: return "PORT_ARMED";
    case IBV_PORT_ACTIVE: return "PORT_ACTIVE";
    case IBV_PORT_ACTIVE_DEFER: return "PORT_ACTIVE_DEFER";
  }
  return "invalid state";
}

std::string_view PortInfo::PhysStateName() const {
  switch (phys_state) {
    case 1: return "SLEEP";
    case 2: return "POLLING";
    case 3: return "DISABLED";
    case 4: return "PORT_CONFIGURATION TRAINNING";  // sic, as ibv_devinfo
    case 5: return "LINK_UP";
    case 6: return "LINK_ERROR_RECOVERY";
    case 7: return "PHY TEST";
    default: return "invalid physical state";
  }
}

uint32_t PortInfo::ActiveMtuBytes() const { return MtuBytes(active_mtu); }

uint32_t PortInfo::MaxMtuBytes() const { return MtuBytes(max_mtu); }

double PortInfo::LinkGbps() const { return lane_gbps * lanes; }

const PortInfo* DeviceInfo::FindPort(uint8_t number) const {
  for (const PortInfo& port : ports) {
    if (port.number == number) return &port;
  }
  return nullptr;
}

double LaneGbps(uint32_t active_speed) {
  switch (active_speed) {
    case 1: return 2.5;        // SDR
    case 2: return 5.0;        // DDR
    case 4: return 10.0;       // QDR
    case 8: return 10.3125;    // FDR10
    case 16: return 14.0625;   // FDR
    case 32: return 25.78125;  // EDR
    case 64: return 53.125;    // HDR
    case 128: return 106.25;   // NDR
    case 256: return 212.5;    // XDR
    default: return 0;
  }
}

int LaneCount(uint8_t active_width) {
  switch (active_width) {
    case 1: return 1;
    case 2: return 4;
    case 4: return 8;
    case 8: return 12;
    case 16: return 2;
    default: return 0;
  }
}

std::string_view TransportName(ibv_transport_type transport) {
  switch (transport) {
    case IBV_TRANSPORT_IB: return "InfiniBand";
    case IBV_TRANSPORT_IWARP: return "iWARP";
    case IBV_TRANSPORT_USNIC: return "usNIC";
    case IBV_TRANSPORT_USNIC_UDP: return "usNIC UDP";
    case IBV_TRANSPORT_UNSPECIFIED: return "unspecified";
    case IBV_TRANSPORT_UNKNOWN: break;
  }
  return "unknown transport";
}

std::string_view LinkLayerName(LinkLayer link_layer) {
  switch (link_layer) {
    case LinkLayer::kInfiniBand: return "InfiniBand";
    case LinkLayer::kEthernet: return "Ethernet";
    case LinkLayer::kUnspecified: break;
  }
  return "unspecified";
}

std::string_view GidTypeName(GidType type) {
  switch (type) {
    case GidType::kRoceV1: return "RoCE v1";
    case GidType::kRoceV2: return "RoCE v2";
    case GidType::kIb: break;
  }
  return "IB";
}

std::string_view AtomicCapName(ibv_atomic_cap cap) {
  switch (cap) {
    case IBV_ATOMIC_NONE: return "ATOMIC_NONE";
    case IBV_ATOMIC_HCA: return "ATOMIC_HCA";
    case IBV_ATOMIC_GLOB: return "ATOMIC_GLOB";
  }
  return "invalid atomic capability";
}

Result<DeviceInfo> QueryDevice(ibv_context* context) {
  if (context == nullptr || context->device == nullptr) {
    return InvalidArgument("QueryDevice: null ibv_context");
  }
  DeviceInfo info;
  info.name = ibv_get_device_name(context->device);
  info.transport = std::string(TransportName(context->device->transport_type));
  ibv_device_attr attr{};
  if (const int rc = ibv_query_device(context, &attr); rc != 0) {
    return VerbsError(info.name, "ibv_query_device", rc);
  }
  info.node_guid = GuidText(attr.node_guid);
  info.fw_ver = std::string(attr.fw_ver, strnlen(attr.fw_ver, sizeof(attr.fw_ver)));
  info.vendor_id = attr.vendor_id;
  info.vendor_part_id = attr.vendor_part_id;
  info.hw_ver = attr.hw_ver;
  info.max_qp = attr.max_qp;
  info.max_qp_wr = attr.max_qp_wr;
  info.max_sge = attr.max_sge;
  info.max_cqe = attr.max_cqe;
  info.max_mr = attr.max_mr;
  info.raw_attr = attr;
  info.max_qp_rd_atom = attr.max_qp_rd_atom;
  info.max_qp_init_rd_atom = attr.max_qp_init_rd_atom;
  info.max_mr_size = attr.max_mr_size;
  info.atomic_cap = attr.atomic_cap;
  for (unsigned number = 1; number <= attr.phys_port_cnt; ++number) {
    ibv_port_attr port_attr{};
    const auto port = static_cast<uint8_t>(number);
    if (const int rc = ibv_query_port(context, port, &port_attr); rc != 0) {
      return VerbsError(info.name, fmt::format("ibv_query_port({})", number), rc);
    }
    info.ports.push_back(ToPortInfo(port, port_attr));
  }
  XFER_RETURN_IF_ERROR(QueryGids(context, info.name, info.ports));
  return info;
}

Result<std::vector<DeviceInfo>> ListDevices() {
  int count = 0;
  errno = 0;
  DeviceListHandle list(ibv_get_device_list(&count));
  if (list == nullptr) {
    // ENOSYS: the kernel has no RDMA (uverbs) support: simply no device.
    if (errno == ENOSYS || errno == 0) return std::vector<DeviceInfo>{};
    return IoError(fmt::format("ibv_get_device_list: {}", std::strerror(errno)));
  }
  std::vector<DeviceInfo> devices;
  for (int i = 0; i < count; ++i) {
    ibv_device* device = list.get()[i];
    const char* name = ibv_get_device_name(device);
    errno = 0;
    ContextHandle context(ibv_open_device(device));
    if (context == nullptr) {
      return VerbsError(name, "ibv_open_device", errno != 0 ? errno : ENODEV);
    }
    Result<DeviceInfo> info = QueryDevice(context.get());
    if (!info.ok()) return info.status();
    devices.push_back(std::move(info).value());
  }
  return devices;
}

std::string ExplainNoDevices(const std::filesystem::path& root) {
  const std::vector<std::string> registered =
      Entries(root / "sys/class/infiniband", "");
  if (registered.empty()) return NoKernelDevice(root) + std::string(kSoftRoceHint);
  const std::string names = fmt::format("{}", fmt::join(registered, ", "));
  if (Entries(root / "dev/infiniband", "uverbs").empty()) {
    return fmt::format(
               "libibverbs found no RDMA device although the kernel has {} "
               "in /sys/class/infiniband: there is no /dev/infiniband/uverbs* "
               "(load ib_uverbs: 'modprobe ib_uverbs').",
               names) +
           std::string(kSoftRoceHint);
  }
  return fmt::format(
             "libibverbs found no RDMA device although the kernel has {} and "
             "/dev/infiniband/uverbs*: check that the user-space provider is "
             "installed (ibverbs-providers, /etc/libibverbs.d) and that "
             "/dev/infiniband/uverbs* is readable by this user.",
             names) +
         std::string(kSoftRoceHint);
}

}  // namespace xfer::verbs
