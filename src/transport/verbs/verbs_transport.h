// The verbs transport: one-sided and two-sided transfers over RDMA
// (InfiniBand, RoCE, iWARP through rdma-core's libibverbs), between any two
// hosts whose devices reach each other. See verbs_endpoint.h for the
// connection design and setup_exchange.h for the setup protocol.
#ifndef XFER_TRANSPORT_VERBS_VERBS_TRANSPORT_H_
#define XFER_TRANSPORT_VERBS_VERBS_TRANSPORT_H_

#include <memory>
#include <string_view>

#include "transport/transport.h"
#include "transport/transport_registry.h"
#include "transport/verbs/verbs_transport_options.h"

namespace xfer::transport::verbs {

// Its options only; every endpoint opens the device for itself, so the
// transport holds no device state. Thread-safe.
class VerbsTransport final : public Transport {
 public:
  explicit VerbsTransport(VerbsTransportOptions options);

  std::string_view name() const override { return "verbs"; }

  // one_sided, two_sided, any host, up to 64 streams (QPs), preference 50:
  // above tcp (10), below shm (100), which is faster between processes of
  // one host.
  Capabilities capabilities() const override;

  // Opens the configured device and port (and closes it again). Errors:
  // kFailedPrecondition (no RDMA device, with ExplainNoDevices(); the port
  // is not ACTIVE), kNotFound (no such device or port), kInternal.
  Status Usable() const override;

  // The configured device first, then every other device whose port of
  // the configured number is ACTIVE on the same link layer (an InfiniBand
  // HCA never pairs with a RoCE NIC: the link layer is the ends' network),
  // in libibverbs' order; each with its port's signalling rate. None when
  // the configured device cannot be opened.
  std::vector<RailCandidate> RailCandidates(const std::string& control_local) const override;

  // The devices topology::RailNicsForNode names for `numa_node`, read from
  // this host's sysfs.
  std::vector<std::string> NearestRailEnds(int64_t numa_node) const override;

  // Creates the endpoint's resources and runs the setup exchange with the
  // peer (setup_exchange.h). Errors: kInvalidArgument (bad setup), those of
  // CreateEndpointResources and RunSetupExchange; either way the peer is
  // told, and fails too.
  Result<std::unique_ptr<Endpoint>> CreateEndpoint(EndpointSetup& setup) override;

  const VerbsTransportOptions& options() const { return options_; }

 private:
  const VerbsTransportOptions options_;
};

}  // namespace xfer::transport::verbs

namespace xfer::transport {

// Adds {"verbs", ...} to `registry`, configured from EngineOptions::verbs;
// called by RegisterBuiltinTransports.
void RegisterVerbsTransport(TransportRegistry& registry);

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_VERBS_VERBS_TRANSPORT_H_
