#include "transport/tcp/tcp_transport.h"

#include <utility>

#include "transport/option_reader.h"
#include "transport/tcp/device_staging.h"
#include "transport/tcp/rail_addresses.h"
#include "transport/tcp/stream_setup.h"
#include "transport/tcp/tcp_endpoint.h"

namespace xfer::transport::tcp {
namespace {

constexpr int kPreference = 10;

}  // namespace

TcpTransport::TcpTransport() : TcpTransport(TcpOptions{}) {}

TcpTransport::TcpTransport(const TcpOptions& options) : options_(options) {}

Capabilities TcpTransport::capabilities() const {
  Capabilities caps;
  caps.one_sided = true;
  caps.two_sided = true;
  caps.notifications = true;
  caps.data_mover = DataMover::kKernel;
  caps.same_host_only = false;
  caps.max_streams = kMaxStreams;
  caps.max_rails = 16;
  caps.preference = kPreference;
  // Where the build has CUDA: device memory staged through pinned host
  // memory on both sides (device_staging.h).
  if (cuda::DeviceRuntime::Built()) {
    caps.memory_kinds |= MemoryKindBit(MemoryKind::kCuda);
    caps.device_path = StagedPathName();
  }
  // One frame per piece of an entry, counted in 32 bits (CountFrames);
  // each post sends its frames, payload included, before it returns.
  caps.max_entries_per_post = std::numeric_limits<uint32_t>::max();
  caps.max_inline_bytes = std::numeric_limits<uint64_t>::max();
  return caps;
}

std::vector<RailCandidate> TcpTransport::RailCandidates(const std::string& control_local) const {
  return RailEnds(ListInterfaceAddresses(), control_local, &InterfaceBytesPerSec);
}

Result<std::unique_ptr<Endpoint>> TcpTransport::CreateEndpoint(EndpointSetup& setup) {
  if (setup.local == nullptr || setup.devices == nullptr) {
    return InvalidArgument("tcp: no local memory view or CUDA runtime");
  }
  auto sockets = EstablishStreams(setup, options_.streams);
  if (!sockets.ok()) return sockets.status();
  const std::string local = sockets->outgoing.front().LocalHost();
  auto endpoint = std::make_unique<TcpEndpoint>(std::move(*sockets), setup);
  if (setup.fail_on_link_down) {
    const int ifindex = InterfaceIndexOf(local);
    if (auto watch = SharedLinkWatch(); watch != nullptr && ifindex != 0) {
      endpoint->FailOnLinkDown(std::move(watch), ifindex);
    }
  }
  return std::unique_ptr<Endpoint>(std::move(endpoint));
}

std::shared_ptr<LinkWatch> TcpTransport::SharedLinkWatch() {
  std::lock_guard lock(link_watch_mu_);
  if (!link_watch_tried_) {
    link_watch_tried_ = true;
    // A host (or sandbox) without netlink keeps the slice timeout alone.
    if (auto started = LinkWatch::Start(); started.ok()) link_watch_ = std::move(*started);
  }
  return link_watch_;
}

}  // namespace xfer::transport::tcp

namespace xfer::transport {

void RegisterTcpTransport(TransportRegistry& registry) {
  registry.Add({"tcp", "TCP sockets between any two hosts; one socket pair per stream", {},
                [](const TransportOptions& options) -> Result<std::unique_ptr<Transport>> {
                  XFER_RETURN_IF_ERROR(OptionReader("tcp", {}, options).Check());
                  return std::unique_ptr<Transport>(std::make_unique<tcp::TcpTransport>());
                }});
}

}  // namespace xfer::transport
