#include "transport/verbs/verbs_transport_options.h"

#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "transport/option_reader.h"

namespace xfer::transport::verbs {
namespace {

constexpr uint64_t kMtuChoices[] = {256, 512, 1024, 2048, 4096};
constexpr uint64_t kMinRegistrationPieceBytes = uint64_t{1} << 20;
constexpr uint64_t kRegistrationPieceAlignment = 4096;

constexpr OptionSpec kVerbsOptions[] = {
    {.key = "device",
     .default_text = "the first device listed",
     .doc = "the RDMA device, as ibv_devices names it (mlx5_0, rxe0)",
     .flag = "-d"},
    {.key = "port",
     .integer = true,
     .min = 1,
     .max = 255,
     .default_text = "1",
     .doc = "the device's port, which must be ACTIVE",
     .flag = "-i"},
    // The device knows its table's length; ChooseGid says when the index
    // is past it.
    {.key = "gid_index",
     .integer = true,
     .min = 0,
     .max = std::numeric_limits<int32_t>::max(),
     .default_text = "chosen: on RoCE the port's best GID (IPv4-mapped before IPv6, not "
                     "link-local, RoCE v2 before v1, the control connection's address first); "
                     "on InfiniBand no GRH",
     .doc = "the GID table index, as perftest's -x",
     .flag = "-x"},
    {.key = "mtu",
     .integer = true,
     .min = 256,
     .max = 4096,
     .choices = kMtuChoices,
     .default_text = "the smaller of both ports' active MTU",
     .doc = "the path MTU in bytes",
     .flag = "-m"},
    {.key = "send_depth",
     .integer = true,
     .min = 1,
     .max = 32768,
     .default_text = "256",
     .doc = "work requests posted and not yet completed per queue pair (capped by the device)"},
    {.key = "registration_piece",
     .integer = true,
     .min = kMinRegistrationPieceBytes,
     .max = uint64_t{1} << 40,
     .default_text = "268435456 (256 MiB)",
     .doc = "bytes: a region longer than this is registered in pieces of this size (a multiple "
            "of 4096), up to 4 at once"},
};

}  // namespace

std::span<const OptionSpec> VerbsOptionTable() { return kVerbsOptions; }

Result<VerbsTransportOptions> ReadVerbsTransportOptions(const TransportOptions& options) {
  const OptionReader reader("verbs", kVerbsOptions, options);
  XFER_RETURN_IF_ERROR(reader.Check());
  VerbsTransportOptions out;
  if (auto device = reader.Text("device")) out.device.device = *device;
  if (auto port = reader.Integer("port")) out.device.port = static_cast<uint8_t>(*port);
  if (auto gid = reader.Integer("gid_index")) out.device.gid_index = static_cast<int>(*gid);
  if (auto mtu = reader.Integer("mtu")) out.mtu_bytes = static_cast<uint32_t>(*mtu);
  if (auto depth = reader.Integer("send_depth")) out.send_depth = static_cast<uint32_t>(*depth);
  if (auto piece = reader.Integer("registration_piece")) {
    if (*piece % kRegistrationPieceAlignment != 0) {
      return InvalidArgument(fmt::format(
          "verbs transport option 'registration_piece': '{}' is not a multiple of {}", *piece,
          kRegistrationPieceAlignment));
    }
    out.registration_piece_bytes = *piece;
  }
  return out;
}

}  // namespace xfer::transport::verbs
