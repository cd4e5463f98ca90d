#include "transport/shm/shm_transport.h"

#include <utility>
#include <vector>

#include "transport/shm/message_channel.h"
#include "transport/shm/peer_mapping.h"
#include "transport/shm/region_table.h"
#include "transport/shm/rendezvous.h"
#include "transport/shm/shm_endpoint.h"

namespace xfer::transport {
namespace shm {
namespace {

Result<std::vector<SharedRegion>> SwapTables(Socket& socket, const EndpointSetup& setup) {
  if (setup.initiator) {
    XFER_RETURN_IF_ERROR(SendRegionTable(socket, setup.announced, setup.deadline));
    return ReceiveRegionTable(socket, setup.remote, setup.deadline);
  }
  auto shared = ReceiveRegionTable(socket, setup.remote, setup.deadline);
  if (!shared.ok()) return shared.status();
  XFER_RETURN_IF_ERROR(SendRegionTable(socket, setup.announced, setup.deadline));
  return shared;
}

Result<std::unique_ptr<Endpoint>> Connect(EndpointSetup& setup) {
  auto socket = Rendezvous(setup);
  if (!socket.ok()) return socket.status();
  auto shared = SwapTables(*socket, setup);
  if (!shared.ok()) return shared.status();
  auto mapping = PeerMapping::Create(setup.remote, std::move(*shared));
  if (!mapping.ok()) return mapping.status();
  auto channel = std::make_unique<MessageChannel>(std::move(*socket), setup.io_timeout);
  XFER_RETURN_IF_ERROR(channel->Start());
  return std::unique_ptr<Endpoint>(
      std::make_unique<ShmEndpoint>(std::move(*mapping), setup.peer_pid, std::move(channel)));
}

}  // namespace

Capabilities ShmTransport::capabilities() const {
  Capabilities caps;
  caps.one_sided = true;
  caps.two_sided = true;
  caps.same_host_only = true;
  caps.max_streams = 64;
  caps.preference = 100;
  return caps;
}

Result<std::unique_ptr<Endpoint>> ShmTransport::CreateEndpoint(EndpointSetup& setup) {
  if (setup.control == nullptr || setup.local == nullptr) {
    return InvalidArgument("shm setup needs a control socket and the local memory table");
  }
  auto endpoint = Connect(setup);
  if (!endpoint.ok()) return endpoint.status().WithContext("shm setup");
  return endpoint;
}

}  // namespace shm

void RegisterShmTransport(TransportRegistry& registry) {
  registry.Add(TransportEntry{
      "shm", "same-host shared memory: one-sided copies straight into the peer's memory",
      [](const EngineOptions&) {
        return std::unique_ptr<Transport>(std::make_unique<shm::ShmTransport>());
      }});
}

}  // namespace xfer::transport
