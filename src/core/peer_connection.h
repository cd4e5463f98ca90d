// One established connection to a peer, and the two ways to establish one:
// as the initiator (Engine::Connect) or as the acceptor (the engine's
// listener). Establishing = handshake + transport choice + endpoint setup.
#ifndef XFER_CORE_PEER_CONNECTION_H_
#define XFER_CORE_PEER_CONNECTION_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/socket.h"
#include "core/connection_memory.h"
#include "core/handshake.h"
#include "core/memory_registry.h"
#include "core/notification_inbox.h"
#include "core/rail_pairing.h"
#include "core/rail_recovery.h"
#include "core/staging_pipeline.h"
#include "core/striped_endpoint.h"
#include "transport/transport.h"
#include "xfer/engine.h"

namespace xfer::core {

// The transports one engine may use, best first. Owned by the engine.
using TransportList = std::vector<std::unique_ptr<transport::Transport>>;

// What establishing a connection needs from the engine. All references
// outlive the call.
struct ConnectContext {
  const PeerIdentity& local;
  const TransportList& transports;
  MemoryRegistry& memory;
  cuda::DeviceRuntime& devices;
  std::chrono::milliseconds connect_timeout;
  std::chrono::milliseconds io_timeout;
  StripedEndpoint::Options failover;  // how striped connections recover
  // How a striped connection brings a failed rail back (RailRecovery):
  // the first wait and the most it doubles to; a zero first wait leaves
  // failed rails down.
  std::chrono::milliseconds rejoin_backoff;
  std::chrono::milliseconds rejoin_max_backoff;
  const SharedSecret* secret;  // null: peers are not authenticated
  DevicePath device_path;
  NotificationInbox& inbox;  // where the connection's notifications go
};

class PeerConnection {
 public:
  // `memory` is what `endpoint` was set up to see as local memory.
  // `striped`: `endpoint` itself when it stripes over several rails, else
  // null.
  // `notifications` is the sink `endpoint` was set up with.
  PeerConnection(PeerInfo info, transport::Capabilities capabilities, Socket control,
                 transport::RemoteMemory remote, std::unique_ptr<ConnectionMemory> memory,
                 std::shared_ptr<NotificationInbox::Sink> notifications,
                 std::unique_ptr<transport::Endpoint> endpoint, StripedEndpoint* striped,
                 cuda::DeviceRuntime& devices, DevicePath device_path,
                 std::chrono::milliseconds io_timeout);
  ~PeerConnection();

  const PeerInfo& info() const { return info_; }
  // info() with what each rail has carried so far.
  PeerInfo InfoNow() const;
  // The carrying transport's.
  const transport::Capabilities& capabilities() const { return capabilities_; }
  const transport::RemoteMemory& remote() const { return remote_; }
  transport::Endpoint& endpoint() { return *endpoint_; }
  StagingPipeline& staging() { return *staging_; }
  NotificationInbox::Sink& notifications() { return *notifications_; }

  // Whether a local buffer of `kind` bounces through the staging pipeline
  // (DevicePath): always when staged; under kAuto, when the transport does
  // not carry the kind itself; never when direct.
  bool Stages(MemoryKind kind) const {
    return device_path_ == DevicePath::kStaged ||
           (device_path_ == DevicePath::kAuto && !capabilities_.Carries(kind));
  }

  // The connection's stream a caller's `stream` maps to: any value is
  // taken, modulo the streams the connection has (a compare, not a
  // division, for one in range).
  uint32_t StreamOf(uint32_t stream) const {
    return stream < info_.streams ? stream : stream % info_.streams;
  }

  // Whether a one-sided request of `bytes` is moved by the connection's
  // thread rather than inside the post (Capabilities::offload_from_bytes).
  bool Offloads(uint64_t bytes) const {
    return capabilities_.offload_from_bytes != 0 && bytes >= capabilities_.offload_from_bytes;
  }

  // Fails in-flight requests (staged ones too) with kConnectionLost and
  // closes the sockets. Idempotent; safe while other threads post (they
  // then fail).
  void Close();

  // What setting one of a striped connection's rails up again needs: what
  // its first setup had. `announced`: the regions this side's handshake
  // announced, which a fresh endpoint announces again.
  struct RailPlan {
    ConnectContext ctx;
    transport::Transport* transport = nullptr;
    bool initiator = false;
    uint32_t streams = 0;
    PeerIdentity peer;
    std::vector<RailPair> pairs;
    std::vector<transport::LocalRegionView> announced;
  };
  // Starts bringing failed rails back (RailRecovery) when the connection
  // is striped and ctx.rejoin_backoff is not zero; a thread that cannot
  // start leaves them down.
  void StartRailRecovery(RailPlan plan);

 private:
  PeerInfo info_;
  transport::Capabilities capabilities_;
  Socket control_;
  transport::RemoteMemory remote_;
  const DevicePath device_path_;
  // Destroyed in reverse: the pipeline (which posts to the endpoint), the
  // endpoint (which may hold registrations of the staging memory), then
  // the memory.
  std::unique_ptr<ConnectionMemory> memory_;
  std::shared_ptr<NotificationInbox::Sink> notifications_;  // the endpoint delivers into it
  std::unique_ptr<transport::Endpoint> endpoint_;
  StripedEndpoint* const striped_;  // endpoint_ when it stripes, else null
  std::unique_ptr<StagingPipeline> staging_;
  // Last: stopped (and destroyed) before everything its thread uses.
  std::unique_ptr<RailPlan> rail_plan_;
  std::unique_ptr<RailRecovery> recovery_;
};

// Connects to `address`, says Hello, reads the reply, sets up the endpoint.
// Errors: see Engine::Connect.
Result<std::unique_ptr<PeerConnection>> ConnectToPeer(const ConnectContext& ctx,
                                                      const HostPort& address,
                                                      const ConnectOptions& options);

// Serves one freshly accepted control socket: reads Hello, chooses the
// transport, replies (with the refusal reason when it refuses), sets up the
// endpoint. Errors: kProtocolError, kTimeout, kConnectionLost, kNotSupported.
Result<std::unique_ptr<PeerConnection>> AcceptFromPeer(const ConnectContext& ctx, Socket control);

// The transport a Hello asks for, among `ours`: the forced one if both allow
// it and the hosts fit, else the most preferred both allow. Errors:
// kNotSupported naming the reason.
Result<transport::Transport*> ChooseTransport(const TransportList& ours, const Hello& hello,
                                              bool same_host);

}  // namespace xfer::core

#endif  // XFER_CORE_PEER_CONNECTION_H_
