#include "transport/verbs/verbs_transport_options.h"

#include <fmt/format.h>

#include <cstdint>
#include <limits>

#include "transport/option_reader.h"

namespace xfer::transport::verbs {

Result<VerbsTransportOptions> ReadVerbsTransportOptions(const TransportOptions& options) {
  VerbsTransportOptions out;
  OptionReader reader("verbs", options);
  if (auto device = reader.String("device")) out.device.device = *device;
  auto port = reader.Unsigned("port", 1, 255);
  if (!port.ok()) return port.status();
  if (*port) out.device.port = static_cast<uint8_t>(**port);
  // The device knows its table's length; ChooseGid says when the index is past it.
  auto gid_index = reader.Unsigned("gid_index", 0, std::numeric_limits<int32_t>::max());
  if (!gid_index.ok()) return gid_index.status();
  if (*gid_index) out.device.gid_index = static_cast<int>(**gid_index);
  auto mtu = reader.Unsigned("mtu", 256, 4096);
  if (!mtu.ok()) return mtu.status();
  if (*mtu) {
    const uint64_t bytes = **mtu;
    if ((bytes & (bytes - 1)) != 0) {
      return InvalidArgument(fmt::format(
          "verbs transport option 'mtu': {} is not one of 256, 512, 1024, 2048, 4096", bytes));
    }
    out.mtu_bytes = static_cast<uint32_t>(bytes);
  }
  auto send_depth = reader.Unsigned("send_depth", 1, 32768);
  if (!send_depth.ok()) return send_depth.status();
  if (*send_depth) out.send_depth = static_cast<uint32_t>(**send_depth);
  XFER_RETURN_IF_ERROR(reader.Finish());
  return out;
}

}  // namespace xfer::transport::verbs
