// The tcp transport: one-sided and two-sided transfers over TCP sockets,
// between any two hosts. See tcp_endpoint.h for the connection design and
// frame.h for the wire format.
#ifndef XFER_TRANSPORT_TCP_TCP_TRANSPORT_H_
#define XFER_TRANSPORT_TCP_TCP_TRANSPORT_H_

#include <memory>
#include <string_view>

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

// Stateless apart from its options; thread-safe.
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
  // endpoint's threads. Errors: as EstablishStreams.
  Result<std::unique_ptr<Endpoint>> CreateEndpoint(EndpointSetup& setup) override;

 private:
  TcpOptions options_;
};

}  // namespace xfer::transport::tcp

namespace xfer::transport {

// Adds {"tcp", ...} to `registry`; called by RegisterBuiltinTransports.
void RegisterTcpTransport(TransportRegistry& registry);

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_TCP_TCP_TRANSPORT_H_
