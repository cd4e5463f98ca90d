// The tcp transport: one-sided and two-sided transfers over TCP sockets,
// between any two hosts. See tcp_endpoint.h for the connection design and
// frame.h for the wire format.
#ifndef XFER_TRANSPORT_TCP_TCP_TRANSPORT_H_
#define XFER_TRANSPORT_TCP_TCP_TRANSPORT_H_

#include <memory>
#include <mutex>
#include <string_view>

#include "transport/tcp/link_watch.h"
#include "transport/tcp/stream_setup.h"
#include "transport/transport.h"
#include "transport/transport_registry.h"

namespace xfer::transport::tcp {

struct TcpOptions {
  // Data-socket options. The default keeps the kernel's buffer autotuning:
  // on loopback, fixed 4 MiB buffers measured no better for 1 MiB WRITEs
  // (and setting SO_RCVBUF disables autotuning for good).
  StreamOptions streams;
};

// Its options, and the link watch its rails share (started by the first
// endpoint that asks for it); thread-safe.
class TcpTransport final : public Transport {
 public:
  TcpTransport();
  explicit TcpTransport(const TcpOptions& options);

  std::string_view name() const override { return "tcp"; }

  // one_sided, two_sided, any host, up to 64 streams, preference 10.
  Capabilities capabilities() const override;

  // This host's up IPv4 addresses, each in its subnet (rail_addresses.h).
  std::vector<RailCandidate> RailCandidates(const std::string& control_local) const override;

  // Opens setup.streams socket pairs (stream_setup.h) and starts the
  // endpoint's threads; with setup.fail_on_link_down, the endpoint fails
  // when the kernel announces its interface down (link_watch.h; without a
  // watch -- no netlink here -- it does not, and the engine's slice
  // timeout is what finds the dead link). Errors: as EstablishStreams.
  Result<std::unique_ptr<Endpoint>> CreateEndpoint(EndpointSetup& setup) override;

 private:
  // The shared watch, started on first use; null when it cannot start.
  std::shared_ptr<LinkWatch> SharedLinkWatch();

  TcpOptions options_;
  std::mutex link_watch_mu_;
  std::shared_ptr<LinkWatch> link_watch_;  // GUARDED_BY(link_watch_mu_)
  bool link_watch_tried_ = false;          // GUARDED_BY(link_watch_mu_)
};

}  // namespace xfer::transport::tcp

namespace xfer::transport {

// Adds {"tcp", ...} to `registry`; called by RegisterBuiltinTransports.
void RegisterTcpTransport(TransportRegistry& registry);

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_TCP_TCP_TRANSPORT_H_
