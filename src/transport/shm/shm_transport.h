// The shm transport: same-host connections whose one-sided transfers are
// memory copies by the initiating CPU, with no help from the peer.
#ifndef XFER_TRANSPORT_SHM_SHM_TRANSPORT_H_
#define XFER_TRANSPORT_SHM_SHM_TRANSPORT_H_

#include <memory>
#include <string_view>

#include "transport/transport.h"
#include "transport/transport_registry.h"

namespace xfer::transport {

namespace shm {

// Stateless; thread-safe. Each CreateEndpoint builds an independent
// connection.
class ShmTransport final : public Transport {
 public:
  // Capabilities::offload_from_bytes: requests from this size on are
  // copied by the engine's thread, not inside Submit.
  static constexpr uint64_t kOffloadFromBytes = uint64_t{4} << 20;

  std::string_view name() const override { return "shm"; }

  // One- and two-sided, same host only. Streams are accepted and ignored:
  // a memcpy has no queues to spread work over. Preferred over tcp.
  Capabilities capabilities() const override;

  // Both sides, concurrently: meet on a private Unix socket (see
  // Rendezvous), swap tables of memfd-backed regions with their descriptors
  // and revocation tables (the initiator sends first, the target receives
  // first, so large tables cannot deadlock on full socket buffers), map the
  // peer's, and start the message channel on the same socket. The Unix
  // socket stays open: it carries two-sided messages and reports the peer's
  // death.
  // REQUIRES: setup.control and setup.local are set.
  // Errors: kTimeout (setup.deadline), kConnectionLost, kProtocolError (the
  // peer's announcement, token, table or descriptors are malformed or do
  // not match setup.remote), kResourceExhausted (mmap, thread), kIoError.
  Result<std::unique_ptr<Endpoint>> CreateEndpoint(EndpointSetup& setup) override;
};

}  // namespace shm

// Adds "shm" to `registry`. Called by RegisterBuiltinTransports.
void RegisterShmTransport(TransportRegistry& registry);

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_SHM_SHM_TRANSPORT_H_
