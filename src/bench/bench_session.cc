#include "bench/bench_session.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/model/accept_peer.h"
#include "bench/model/interruption.h"
#include "cuda/device_choice.h"
#include "xfer/device.h"

namespace xfer::bench {
namespace {

uint64_t MaxSize(const BenchParams& params) {
  auto sizes = params.Sizes();
  return *std::max_element(sizes.begin(), sizes.end());
}

Result<std::unique_ptr<Engine>> MakeEngine(const BenchParams& params, std::string listen_address,
                                           const char* name) {
  EngineOptions options;
  options.name = name;
  options.listen_address = std::move(listen_address);
  if (!params.transport.empty()) options.transports = {params.transport};
  options.connect_timeout = params.timeout;
  options.io_timeout = params.timeout;
  options.secret = params.secret;
  options.device_path = params.device_path;
  // What the typed flags set, by the transports' own tables (the CLI's
  // derivation): only built-in transports have rows, so Engine::Create
  // never meets settings for a transport this build lacks.
  options.transport_options = params.transport_options;
  return Engine::Create(options);
}

bool UsesCuda(const BenchParams& params) {
  return params.cuda_device.has_value() || !params.cuda_bus_id.empty();
}

// The ordinal of the GPU --use_cuda or --use_cuda_bus_id names.
Result<int> ChosenGpu(const BenchParams& params) {
  return cuda::ChooseDevice(params.cuda_device, params.cuda_bus_id,
                            params.cuda_device ? "--use_cuda" : "--use_cuda_bus_id");
}

// A --use_cuda run needs a connection that carries device memory; the
// side that asked for it says so before anything is timed.
Status CheckDeviceMemoryCarried(const BenchParams& params, const Session& session) {
  if (!UsesCuda(params) || session.peer_info.device_memory) return Status::Ok();
  return FailedPrecondition(fmt::format(
      "--use_cuda: the {} transport does not carry CUDA device memory in this build (shm "
      "and tcp do)",
      session.peer_info.transport));
}

// The test buffer's memory: host, hugepages or the chosen GPU's.
Result<MemoryOptions> BufferOptions(const BenchParams& params) {
  MemoryOptions options;
  options.access = Access::kRemoteReadWrite;
  options.kind = params.use_hugepages ? MemoryKind::kHugepage : MemoryKind::kHost;
  if (UsesCuda(params)) {
    auto gpu = ChosenGpu(params);
    if (!gpu.ok()) return gpu.status();
    options.kind = MemoryKind::kCuda;
    options.device = *gpu;
  }
  return options;
}

Status AllocateBuffer(const BenchParams& params, Session& session) {
  auto options = BufferOptions(params);
  if (!options.ok()) return options.status();
  auto region = session.engine->AllocateMemory(LayoutFor(params).total_bytes(), *options);
  if (!region.ok()) return region.status().WithContext("allocating the test buffer");
  session.buffer = *region;
  return Status::Ok();
}

}  // namespace

Result<RegistrationTiming> ProbeRegistration(const BenchParams& params, Session& session) {
  auto options = BufferOptions(params);
  if (!options.ok()) return options.status();
  RegistrationTiming timing;
  timing.kind = options->kind;
  timing.bytes = LayoutFor(params).total_bytes();
  const auto start = std::chrono::steady_clock::now();
  auto region = session.engine->AllocateMemory(timing.bytes, *options);
  const auto registered = std::chrono::steady_clock::now();
  if (!region.ok()) return region.status().WithContext("registration probe");
  Status deregistered = session.engine->DeregisterMemory(*region);
  const auto end = std::chrono::steady_clock::now();
  if (!deregistered.ok()) return deregistered.WithContext("registration probe");
  timing.register_s = std::chrono::duration<double>(registered - start).count();
  timing.deregister_s = std::chrono::duration<double>(end - registered).count();
  return timing;
}

namespace {

Status CheckPeerBuffer(const BenchParams& params, uint64_t length) {
  const uint64_t needed = LayoutFor(params).total_bytes();
  if (length < needed) {
    return ProtocolError(fmt::format("peer's buffer is {} bytes; this run needs {}", length, needed));
  }
  return Status::Ok();
}

uint64_t AddressOf(const void* p) { return reinterpret_cast<uint64_t>(p); }

// The next client's channel and setup, from the first connection that
// sends one before `deadline`; stray connections are turned away.
struct Client {
  std::unique_ptr<OobChannel> oob;
  RunSetup setup;
};
Result<Client> AcceptClient(const BenchParams& params, Listener& listener, Deadline deadline,
                            const std::atomic<int>& stop) {
  return AcceptPeer(listener, deadline, stop, "an xfer client",
                    "waiting for a client (--accept_timeout)",
                    [&](Socket socket) -> Result<Client> {
                      auto channel = std::make_unique<OobChannel>(std::move(socket), params.timeout);
                      auto setup = channel->RecvSetup();
                      if (!setup.ok()) return setup.status();
                      return Client{std::move(channel), *setup};
                    });
}

// The client's engine connection, or the client's word that it failed
// (its Abort on the out-of-band channel), whichever comes first. The
// client's next message (its first Barrier) may arrive before its engine
// connection is accepted: WatchPeer leaves it for RecvBarrier.
Result<PeerId> WaitForClientEngine(const BenchParams& params, Session& session) {
  constexpr auto kSlice = std::chrono::milliseconds(50);
  const Deadline deadline = Deadline::After(params.timeout);
  for (;;) {
    auto peer = session.engine->WaitForPeer(kSlice);
    if (peer.ok()) return peer;
    if (peer.status().code() != StatusCode::kTimeout) {
      return peer.status().WithContext("waiting for the client's engine");
    }
    if (auto client = session.oob->WatchPeer(); !client.ok()) {
      return client.status().WithContext("waiting for the client's engine");
    }
    if (deadline.expired()) {
      return Timeout(fmt::format("waiting for the client's engine: it did not connect within {} ms",
                                 params.timeout.count()));
    }
  }
}

// One client's turn: the server's reply to its setup, then its engine
// connection. On success the session holds the client's channel and peer.
Status ServeClient(const BenchParams& params, Client& client, Session& session) {
  const RunSetup ours = MakeRunSetup(params, AddressOf(session.buffer.address), session.buffer.length);
  SetupReply reply;
  reply.refusal = CompareSetups(ours, client.setup);
  reply.accepted = reply.refusal.empty();
  auto port = ParseHostPort(session.engine->listen_address());
  reply.engine_port = port.ok() ? port->port : 0;
  reply.buffer_address = ours.buffer_address;
  reply.buffer_length = ours.buffer_length;
  XFER_RETURN_IF_ERROR(client.oob->SendSetupReply(reply));
  if (!reply.accepted) return InvalidArgument("client asked for another run: " + reply.refusal);
  XFER_RETURN_IF_ERROR(CheckPeerBuffer(params, client.setup.buffer_length));
  session.remote_buffer = client.setup.buffer_address;
  session.remote_length = client.setup.buffer_length;
  session.oob = std::move(client.oob);
  auto peer = WaitForClientEngine(params, session);
  if (!peer.ok()) {
    session.oob.reset();  // closes the turned-away client's channel
    return peer.status();
  }
  session.peer = *peer;
  return Status::Ok();
}

}  // namespace

BufferLayout LayoutFor(const BenchParams& params) {
  // Latency tests need two slots on each side: the peer writes into slot 0
  // while this side sends from slot 1 (perftest's receive and send halves).
  // Bidirectional runs need separate source and destination slots too.
  const uint32_t slots =
      params.kind == Kind::kLatency ? 2 : (params.bidirectional ? 2 * params.qps : params.qps);
  return BufferLayout(MaxSize(params), slots);
}

Result<Session> OpenServerSession(const BenchParams& params, Listener& oob_listener,
                                  const std::atomic<int>& stop) {
  Session session;
  auto engine = MakeEngine(params, FormatHostPort({oob_listener.local_address().host, 0}), "xfer-server");
  if (!engine.ok()) return engine.status();
  session.engine = std::move(engine.value());
  XFER_RETURN_IF_ERROR(AllocateBuffer(params, session));

  const Deadline deadline = Deadline::After(params.accept_timeout);
  for (;;) {
    auto client = AcceptClient(params, oob_listener, deadline, stop);
    if (!client.ok()) return client.status();
    const std::string from = client->oob->PeerHost();
    Status served = ServeClient(params, *client, session);
    if (served.ok()) break;
    if (!IsTurnedAway(served)) return served;
    ReportTurnedAway("a", "client", from, served);
  }
  oob_listener.Close();  // like perftest: one server process serves one client
  auto info = session.engine->GetPeerInfo(session.peer);
  if (!info.ok()) return info.status();
  session.peer_info = *info;
  if (Status carried = CheckDeviceMemoryCarried(params, session); !carried.ok()) {
    session.oob->SendAbort(carried.ToString());
    return carried;
  }
  return session;
}

Result<Session> OpenClientSession(const BenchParams& params, const std::atomic<int>& stop) {
  Session session;
  auto engine = MakeEngine(params, "", "xfer-client");
  if (!engine.ok()) return engine.status();
  session.engine = std::move(engine.value());
  XFER_RETURN_IF_ERROR(AllocateBuffer(params, session));

  const HostPort server{params.server_host, params.port};
  auto socket = WaitUnlessInterrupted(Deadline::After(params.timeout), stop,
                                      [&server](Deadline slice) { return ConnectTcp(server, slice); });
  if (!socket.ok()) {
    return socket.status().WithContext(
        fmt::format("connecting to the xfer server at {}:{}", params.server_host, params.port));
  }
  session.oob = std::make_unique<OobChannel>(std::move(socket.value()), params.timeout);
  XFER_RETURN_IF_ERROR(session.oob->SendSetup(
      MakeRunSetup(params, AddressOf(session.buffer.address), session.buffer.length)));
  auto reply = session.oob->RecvSetupReply();
  if (!reply.ok()) return reply.status();
  if (!reply->accepted) return InvalidArgument("server refused the run: " + reply->refusal);
  XFER_RETURN_IF_ERROR(CheckPeerBuffer(params, reply->buffer_length));
  session.remote_buffer = reply->buffer_address;
  session.remote_length = reply->buffer_length;

  ConnectOptions options;
  options.transport = params.transport;
  options.streams = params.qps;
  options.rails = params.rails;
  options.rail_ends = params.rail_ends;
  auto peer = session.engine->Connect(FormatHostPort({params.server_host, reply->engine_port}), options);
  if (!peer.ok()) {
    // The server waits for this engine: tell it why it will not come.
    Status failed = peer.status().WithContext("the client could not connect its engine");
    session.oob->SendAbort(failed.ToString());
    return peer.status().WithContext("connecting the engine");
  }
  session.peer = *peer;
  auto info = session.engine->GetPeerInfo(session.peer);
  if (!info.ok()) return info.status();
  session.peer_info = *info;
  if (Status carried = CheckDeviceMemoryCarried(params, session); !carried.ok()) {
    session.oob->SendAbort(carried.ToString());
    return carried;
  }
  return session;
}

}  // namespace xfer::bench
