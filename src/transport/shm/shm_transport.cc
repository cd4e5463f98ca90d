#include "transport/shm/shm_transport.h"

#include <memory>
#include <utility>
#include <vector>

#include "transport/option_reader.h"
#include "transport/shm/device_table.h"
#include "transport/shm/message_channel.h"
#include "transport/shm/notification_ring.h"
#include "transport/shm/peer_mapping.h"
#include "transport/shm/region_table.h"
#include "transport/shm/rendezvous.h"
#include "transport/shm/revocation_table.h"
#include "transport/shm/shm_endpoint.h"

namespace xfer::transport {
namespace shm {
namespace {

// What each side hands the other at setup: the regions it shares by
// descriptor, its revocation table, its device regions' IPC handles, and
// the ring it reads notifications from.
struct PeerTables {
  std::vector<SharedRegion> shared;
  RevocationTable revocations;
  std::vector<DeviceRow> devices;
  RingMapping notifications;
};

// What this side hands over.
struct OurTables {
  RevocationTable revocations;
  std::shared_ptr<InboundRing> notifications;
};

Status SendTables(Socket& socket, const EndpointSetup& setup, const OurTables& ours) {
  XFER_RETURN_IF_ERROR(SendRegionTable(socket, setup.announced, setup.deadline));
  XFER_RETURN_IF_ERROR(SendRevocationTable(socket, ours.revocations, setup.deadline));
  XFER_RETURN_IF_ERROR(SendDeviceTable(socket, setup.announced, *setup.devices, setup.deadline));
  return SendNotificationRing(socket, *ours.notifications, setup.deadline);
}

Result<PeerTables> ReceiveTables(Socket& socket, const EndpointSetup& setup) {
  auto shared = ReceiveRegionTable(socket, setup.remote, setup.deadline);
  if (!shared.ok()) return shared.status();
  auto revocations = ReceiveRevocationTable(socket, setup.remote, setup.deadline);
  if (!revocations.ok()) return revocations.status();
  auto devices = ReceiveDeviceTable(socket, setup.remote, setup.deadline);
  if (!devices.ok()) return devices.status();
  auto ring = ReceiveNotificationRing(socket, setup.deadline);
  if (!ring.ok()) return ring.status();
  return PeerTables{std::move(*shared), std::move(*revocations), std::move(*devices),
                    std::move(*ring)};
}

Result<PeerTables> SwapTables(Socket& socket, const EndpointSetup& setup, const OurTables& ours) {
  if (setup.initiator) {
    XFER_RETURN_IF_ERROR(SendTables(socket, setup, ours));
    return ReceiveTables(socket, setup);
  }
  auto theirs = ReceiveTables(socket, setup);
  if (!theirs.ok()) return theirs.status();
  XFER_RETURN_IF_ERROR(SendTables(socket, setup, ours));
  return theirs;
}

Result<OurTables> CreateOurTables(const EndpointSetup& setup) {
  auto revocations = RevocationTable::Create(setup.announced);
  if (!revocations.ok()) return revocations.status();
  auto ring = RingMapping::Create();
  if (!ring.ok()) return ring.status();
  return OurTables{std::move(*revocations),
                   std::make_shared<InboundRing>(std::move(*ring), *setup.notifications)};
}

Result<std::unique_ptr<Endpoint>> Connect(EndpointSetup& setup) {
  auto socket = Rendezvous(setup);
  if (!socket.ok()) return socket.status();
  auto ours = CreateOurTables(setup);
  if (!ours.ok()) return ours.status();
  auto theirs = SwapTables(*socket, setup, *ours);
  if (!theirs.ok()) return theirs.status();
  auto mapping = PeerMapping::Create(setup.remote, std::move(theirs->shared),
                                     std::move(theirs->devices), std::move(theirs->revocations),
                                     *setup.devices);
  if (!mapping.ok()) return mapping.status();
  auto channel =
      std::make_unique<MessageChannel>(std::move(*socket), setup.io_timeout, ours->notifications);
  XFER_RETURN_IF_ERROR(channel->Start());
  ShmEndpoint::Notifications notifications{
      std::move(ours->notifications),
      std::make_unique<OutboundRing>(std::move(theirs->notifications))};
  return std::unique_ptr<Endpoint>(std::make_unique<ShmEndpoint>(
      std::move(*mapping), std::move(ours->revocations), setup.peer_pid, std::move(channel),
      std::move(notifications), setup.io_timeout, *setup.local, *setup.devices, setup.streams));
}

}  // namespace

Capabilities ShmTransport::capabilities() const {
  Capabilities caps;
  caps.one_sided = true;
  caps.two_sided = true;
  caps.notifications = true;
  caps.data_mover = DataMover::kCpuCopy;
  caps.same_host_only = true;
  // Where the build has CUDA: the peer's device memory through its IPC
  // handles, copies on a CUDA stream of the endpoint's own.
  if (cuda::DeviceRuntime::Built()) {
    caps.memory_kinds |= MemoryKindBit(MemoryKind::kCuda);
    caps.device_path = "CUDA IPC";
  }
  // Every post copies host memory before it returns (device copies are
  // queued): batches are bounded only by the request's part count, host
  // buffers are free at once.
  caps.max_entries_per_post = std::numeric_limits<uint32_t>::max();
  caps.max_inline_bytes = std::numeric_limits<uint64_t>::max();
  // Requests from 4 MiB on are copied by the engine's thread: a copy of
  // less takes a fraction of a millisecond, inline, where a thread hop
  // would cost more than it saves.
  caps.offload_from_bytes = kOffloadFromBytes;
  caps.max_streams = 64;
  caps.preference = 100;
  return caps;
}

Result<std::unique_ptr<Endpoint>> ShmTransport::CreateEndpoint(EndpointSetup& setup) {
  if (setup.control == nullptr || setup.local == nullptr || setup.devices == nullptr ||
      setup.notifications == nullptr) {
    return InvalidArgument(
        "shm setup needs a control socket, the local memory table, the CUDA runtime and a "
        "notification sink");
  }
  auto endpoint = Connect(setup);
  if (!endpoint.ok()) return endpoint.status().WithContext("shm setup");
  return endpoint;
}

}  // namespace shm

void RegisterShmTransport(TransportRegistry& registry) {
  registry.Add(TransportEntry{
      "shm", "same-host shared memory: one-sided copies straight into the peer's memory", {},
      [](const TransportOptions& options) -> Result<std::unique_ptr<Transport>> {
        XFER_RETURN_IF_ERROR(OptionReader("shm", {}, options).Check());
        return std::unique_ptr<Transport>(std::make_unique<shm::ShmTransport>());
      }});
}

}  // namespace xfer::transport
