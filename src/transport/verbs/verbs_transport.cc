#include "transport/verbs/verbs_transport.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "topology/nic_map.h"
#include "topology/sysfs_reader.h"
#include "transport/verbs/endpoint_resources.h"
#include "transport/verbs/setup_exchange.h"
#include "transport/verbs/verbs_endpoint.h"
#include "verbs/device_catalog.h"
#include "verbs/device_context.h"

namespace xfer::transport {
namespace verbs {
namespace {

constexpr int kPreference = 50;

}  // namespace

VerbsTransport::VerbsTransport(VerbsTransportOptions options) : options_(std::move(options)) {}

Capabilities VerbsTransport::capabilities() const {
  Capabilities caps;
  caps.one_sided = true;
  caps.two_sided = true;
  caps.notifications = true;
  caps.data_mover = DataMover::kNic;
  caps.same_host_only = false;
  caps.max_streams = kMaxStreams;
  caps.max_rails = 16;
  caps.preference = kPreference;
  // At least one WR per entry, all on one QP when the entries are short.
  caps.max_entries_per_post = options_.send_backlog;
  caps.max_inline_bytes = 0;  // the NIC reads the source until completion
  // The target's NIC checks the key; a refused WR moves the QP to error.
  caps.revoked_region_code = StatusCode::kPermissionDenied;
  caps.refusal_fails_connection = true;
  return caps;
}

Status VerbsTransport::Usable() const {
  auto device = ::xfer::verbs::DeviceContext::Open(options_.device.device, options_.device.port);
  return device.ok() ? Status::Ok() : device.status();
}

namespace {

// A rail end's network: ends pair only on one link layer.
std::string LinkLayerNetwork(::xfer::verbs::LinkLayer layer) {
  return layer == ::xfer::verbs::LinkLayer::kEthernet ? "Ethernet" : "InfiniBand";
}

// The port's signalling rate in bytes/s (an upper bound: before line coding
// and headers); the striper's measured estimates take over from it.
double SignallingBytesPerSec(const ::xfer::verbs::PortInfo& port) {
  return port.LinkGbps() * 1e9 / 8;
}

}  // namespace

std::vector<RailCandidate> VerbsTransport::RailCandidates(const std::string& control_local) const {
  (void)control_local;
  auto device = ::xfer::verbs::DeviceContext::Open(options_.device.device, options_.device.port);
  if (!device.ok()) return {};
  const std::string network = LinkLayerNetwork(device->port().link_layer);
  std::vector<RailCandidate> ends = {
      {device->name(), network, SignallingBytesPerSec(device->port())}};
  auto devices = ::xfer::verbs::ListDevices();
  if (!devices.ok()) return ends;
  for (const ::xfer::verbs::DeviceInfo& other : *devices) {
    const ::xfer::verbs::PortInfo* port = other.FindPort(options_.device.port);
    if (other.name == device->name() || port == nullptr || port->state != IBV_PORT_ACTIVE ||
        LinkLayerNetwork(port->link_layer) != network) {
      continue;
    }
    ends.push_back({other.name, network, SignallingBytesPerSec(*port)});
  }
  return ends;
}

std::vector<std::string> VerbsTransport::NearestRailEnds(int64_t numa_node) const {
  return ::xfer::topology::RailNicsForNode(
      ::xfer::topology::ReadNicMap(::xfer::topology::SysfsReader("/")), numa_node);
}

Result<std::unique_ptr<Endpoint>> VerbsTransport::CreateEndpoint(EndpointSetup& setup) {
  if (setup.control == nullptr || !setup.control->valid() || setup.local == nullptr) {
    return InvalidArgument("verbs setup needs a control socket and the local memory table");
  }
  // A rail opens the device the pairing gave it; without rails, the
  // configured one.
  VerbsTransportOptions options = options_;
  if (!setup.local_rail.empty()) options.device.device = setup.local_rail;
  auto resources = CreateEndpointResources(options, setup);
  if (!resources.ok()) return ReportSetupFailure(setup, resources.status());
  auto peer = RunSetupExchange(**resources, setup, options_.mtu_bytes.has_value());
  if (!peer.ok()) return peer.status();
  auto endpoint = VerbsEndpoint::Create(std::move(resources.value()), std::move(peer.value()), setup);
  if (!endpoint.ok()) return endpoint.status();
  return std::unique_ptr<Endpoint>(std::move(endpoint.value()));
}

}  // namespace verbs

void RegisterVerbsTransport(TransportRegistry& registry) {
  registry.Add({"verbs",
                "RDMA verbs (InfiniBand, RoCE): RC queue pairs, one per stream; needs an RDMA "
                "device on both hosts",
                verbs::VerbsOptionTable(),
                [](const TransportOptions& options) -> Result<std::unique_ptr<Transport>> {
                  auto verbs_options = verbs::ReadVerbsTransportOptions(options);
                  if (!verbs_options.ok()) return verbs_options.status();
                  return std::unique_ptr<Transport>(
                      std::make_unique<verbs::VerbsTransport>(std::move(verbs_options.value())));
                }});
}

}  // namespace xfer::transport
