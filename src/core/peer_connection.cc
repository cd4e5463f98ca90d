#include "core/peer_connection.h"

#include <sched.h>

#include <algorithm>

#include <fmt/format.h>

#include "core/authenticated_channel.h"
#include "core/rail_pairing.h"
#include "core/striped_endpoint.h"

namespace xfer::core {
namespace {

std::vector<std::string> NamesOf(const TransportList& transports) {
  std::vector<std::string> names;
  for (const auto& t : transports) names.emplace_back(t->name());
  return names;
}

bool Lists(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The transports an initiator can offer: those whose Usable() is OK now.
// `why_not` collects the others' reasons, for an error naming them.
std::vector<std::string> UsableNames(const TransportList& transports, Status& why_not) {
  std::vector<std::string> names;
  for (const auto& t : transports) {
    Status usable = t->Usable();
    if (usable.ok()) {
      names.emplace_back(t->name());
    } else if (why_not.ok()) {
      why_not = usable.WithContext(fmt::format("transport '{}'", t->name()));
    }
  }
  return names;
}

Result<std::unique_ptr<transport::Endpoint>> SetUpEndpoint(
    const ConnectContext& ctx, transport::Transport& transport, bool initiator, uint32_t streams,
    Socket& control, const PeerIdentity& peer, const transport::RemoteMemory& remote,
    std::vector<transport::LocalRegionView> announced, const ConnectionMemory& memory,
    transport::NotificationSink& notifications, Deadline deadline, const std::string& local_rail,
    const std::string& remote_rail, bool one_of_several) {
  transport::EndpointSetup setup;
  setup.local_rail = local_rail;
  setup.remote_rail = remote_rail;
  setup.fail_on_link_down = one_of_several;
  setup.initiator = initiator;
  setup.streams = streams;
  setup.control = &control;
  setup.peer_host = control.PeerHost();
  if (setup.peer_host.empty()) setup.peer_host = "127.0.0.1";
  setup.peer_pid = peer.pid;
  setup.local = &memory;
  setup.announced = std::move(announced);
  setup.remote = remote;
  setup.io_timeout = ctx.io_timeout;
  setup.deadline = deadline;
  setup.devices = &ctx.devices;
  setup.notifications = &notifications;
  auto endpoint = transport.CreateEndpoint(setup);
  if (!endpoint.ok()) {
    return endpoint.status().WithContext(
        local_rail.empty() ? fmt::format("{} transport setup", transport.name())
                           : fmt::format("{} transport setup of the rail {} -> {}",
                                         transport.name(), local_rail, remote_rail));
  }
  return std::move(endpoint.value());
}

// A connection's endpoint: its one rail's, or a StripedEndpoint over its
// rails (then `striped` points at it), and each rail's ends.
struct RailedEndpoint {
  std::unique_ptr<transport::Endpoint> endpoint;
  StripedEndpoint* striped = nullptr;
  std::vector<RailInfo> rails;
};

// One endpoint per rail of `pairs` (one without rails), set up in the
// pairs' order over `control`, as the peer does on its side.
Result<RailedEndpoint> SetUpRails(const ConnectContext& ctx, transport::Transport& transport,
                                  bool initiator, uint32_t streams, Socket& control,
                                  const PeerIdentity& peer, const transport::RemoteMemory& remote,
                                  const std::vector<transport::LocalRegionView>& announced,
                                  const ConnectionMemory& memory,
                                  transport::NotificationSink& notifications, Deadline deadline,
                                  const std::vector<RailPair>& pairs) {
  RailedEndpoint out;
  if (pairs.empty()) {
    auto endpoint = SetUpEndpoint(ctx, transport, initiator, streams, control, peer, remote,
                                  announced, memory, notifications, deadline, "", "", false);
    if (!endpoint.ok()) return endpoint.status();
    out.endpoint = std::move(endpoint.value());
    out.rails.push_back({control.LocalHost(), control.PeerHost(), 0, 0, 0, true, {}});
    return out;
  }
  std::vector<StripedEndpoint::Rail> rails;
  for (const RailPair& pair : pairs) {
    const std::string& local = initiator ? pair.initiator : pair.acceptor;
    const std::string& far = initiator ? pair.acceptor : pair.initiator;
    auto endpoint = SetUpEndpoint(ctx, transport, initiator, streams, control, peer, remote,
                                  announced, memory, notifications, deadline, local, far,
                                  pairs.size() > 1);
    if (!endpoint.ok()) return endpoint.status();
    rails.push_back({std::move(endpoint.value()), pair.bytes_per_sec});
    out.rails.push_back({local, far, 0, 0, 0, true, {}});
  }
  if (rails.size() == 1) {
    out.endpoint = std::move(rails[0].endpoint);
    return out;
  }
  auto striped = std::make_unique<StripedEndpoint>(std::move(rails), streams, ctx.failover);
  out.striped = striped.get();
  out.endpoint = std::move(striped);
  return out;
}

// The NUMA node the calling thread runs on, where the memory it moves is
// placed unless told otherwise; -1 when the kernel says none.
int64_t CurrentNumaNode() {
  unsigned cpu = 0;
  unsigned node = 0;
  if (getcpu(&cpu, &node) != 0) return -1;
  return node;
}

// The rail ends this side offers the acceptor, per transport that has any:
// those `named` (ConnectOptions::rail_ends) in that order; else, for
// `requested` rails, all; under `auto` (0), AutoRailEnds.
Result<std::vector<TransportRailEnds>> OfferedRailEnds(const TransportList& transports,
                                                       const std::vector<std::string>& offered,
                                                       const std::string& control_local,
                                                       const std::vector<std::string>& named,
                                                       uint32_t requested) {
  std::vector<TransportRailEnds> all;
  std::vector<bool> found(named.size(), false);
  std::vector<std::string> there;  // every end offered, for the error
  for (const auto& t : transports) {
    if (!Lists(offered, t->name())) continue;
    std::vector<transport::RailCandidate> ends = t->RailCandidates(control_local);
    for (const transport::RailCandidate& end : ends) there.push_back(end.name);
    if (!named.empty()) {
      std::vector<transport::RailCandidate> chosen;
      for (size_t i = 0; i < named.size(); ++i) {
        for (const transport::RailCandidate& end : ends) {
          if (end.name != named[i]) continue;
          chosen.push_back(end);
          found[i] = true;
        }
      }
      ends = std::move(chosen);
    } else if (requested == 0 && ends.size() > 1) {
      ends = AutoRailEnds(ends, t->NearestRailEnds(CurrentNumaNode()));
    }
    if (ends.size() > kMaxRailEnds) ends.resize(kMaxRailEnds);
    if (!ends.empty()) all.push_back({std::string(t->name()), std::move(ends)});
  }
  for (size_t i = 0; i < named.size(); ++i) {
    if (found[i]) continue;
    return InvalidArgument(fmt::format(
        "rail end '{}' is not one this host offers over {} (it offers: {})", named[i],
        fmt::join(offered, ", "), there.empty() ? std::string("none") : fmt::format("{}", fmt::join(there, ", "))));
  }
  return all;
}

// The acceptor's pairs checked against what this side offered and asked.
Status CheckChosenRails(const std::vector<RailPair>& chosen,
                        const std::vector<TransportRailEnds>& offered,
                        const transport::Transport& transport, uint32_t requested) {
  const auto ends = std::find_if(offered.begin(), offered.end(), [&](const TransportRailEnds& e) {
    return e.transport == transport.name();
  });
  // `auto` asks for a rail per end offered.
  const uint32_t asked =
      requested != 0 ? requested
                     : std::max<uint32_t>(
                           ends == offered.end() ? 1 : static_cast<uint32_t>(ends->ends.size()), 1);
  const uint32_t most = std::min(asked, std::max(transport.capabilities().max_rails, 1u));
  if (chosen.size() > most) {
    return ProtocolError(fmt::format("peer chose {} rails; at most {} were asked for",
                                     chosen.size(), most));
  }
  for (const RailPair& pair : chosen) {
    const bool known =
        ends != offered.end() &&
        std::any_of(ends->ends.begin(), ends->ends.end(),
                    [&](const transport::RailCandidate& end) { return end.name == pair.initiator; });
    if (!known) {
      return ProtocolError(
          fmt::format("peer chose a rail from '{}', which this side did not offer", pair.initiator));
    }
  }
  return Status::Ok();
}

PeerInfo MakeInfo(const ConnectContext& ctx, const PeerIdentity& peer,
                  const transport::Transport& transport, const RailedEndpoint& railed,
                  uint32_t streams, const std::vector<RemoteRegion>& regions) {
  const transport::Endpoint& endpoint = *railed.endpoint;
  const transport::Capabilities caps = transport.capabilities();
  PeerInfo info;
  info.nic = endpoint.nic();
  info.registration = endpoint.registration();
  info.staged = ctx.device_path == DevicePath::kStaged;
  const bool staged_device = info.staged || (ctx.device_path == DevicePath::kAuto &&
                                             !caps.Carries(MemoryKind::kCuda));
  if (staged_device) {
    // Device memory staged by the engine needs the driver's copies, which
    // need a build with CUDA support.
    info.device_memory = cuda::DeviceRuntime::Built();
    if (info.device_memory) info.device_path = StagingPipeline::PathName();
  } else if (caps.Carries(MemoryKind::kCuda)) {
    info.device_memory = true;
    info.device_path = std::string(caps.device_path);
  }
  info.max_entries_per_post = caps.max_entries_per_post;
  // A staged request is queued for the staging thread, which reads its
  // sources later.
  // A request the engine offloads is read after Submit returns.
  info.max_inline_bytes = info.staged              ? 0
                          : caps.offload_from_bytes != 0
                              ? std::min(caps.max_inline_bytes, caps.offload_from_bytes - 1)
                              : caps.max_inline_bytes;
  info.name = peer.name;
  info.transport = std::string(transport.name());
  info.data_mover = transport.capabilities().data_mover;
  info.streams = streams;
  info.regions = regions;
  info.rails = railed.rails;
  return info;
}

}  // namespace

PeerConnection::PeerConnection(PeerInfo info, transport::Capabilities capabilities,
                               Socket control, transport::RemoteMemory remote,
                               std::unique_ptr<ConnectionMemory> memory,
                               std::shared_ptr<NotificationInbox::Sink> notifications,
                               std::unique_ptr<transport::Endpoint> endpoint,
                               StripedEndpoint* striped, cuda::DeviceRuntime& devices,
                               DevicePath device_path, std::chrono::milliseconds io_timeout)
    : info_(std::move(info)),
      capabilities_(capabilities),
      control_(std::move(control)),
      remote_(std::move(remote)),
      device_path_(device_path),
      memory_(std::move(memory)),
      notifications_(std::move(notifications)),
      endpoint_(std::move(endpoint)),
      striped_(striped),
      staging_(std::make_unique<StagingPipeline>(*endpoint_, memory_->staging(), devices,
                                                 io_timeout,
                                                 capabilities.max_entries_per_post)) {}

PeerConnection::~PeerConnection() { Close(); }

PeerInfo PeerConnection::InfoNow() const {
  PeerInfo info = info_;
  if (striped_ == nullptr) return info;
  for (uint32_t i = 0; i < info.rails.size(); ++i) {
    const RailStriper::RailStats stats = striped_->Stats(i);
    info.rails[i].bytes = stats.bytes;
    info.rails[i].slices = stats.slices;
    info.rails[i].bytes_per_sec = stats.bytes_per_sec;
    info.rails[i].up = stats.up;
    if (!stats.up) info.rails[i].failure = striped_->Failure(i);
    info.rails[i].retried_bytes = striped_->RetriedBytes(i);
    info.rails[i].events = striped_->Events(i);
  }
  return info;
}

void PeerConnection::Close() {
  // The endpoint first: it fails the staged chunks in flight, so that the
  // pipeline's thread ends its request at once.
  // A fence waited for would hold the endpoint's recovery thread, which
  // Close joins.
  if (recovery_) recovery_->EndFences();
  endpoint_->Close();
  // Shuts the control connection down, which ends a rail's setup in
  // progress at once.
  if (recovery_) recovery_->Stop();
  staging_->Stop();
  control_.Shutdown();
}

namespace {

// `announced` as registered now, in its order. Errors: kFailedPrecondition
// naming a region deregistered since (the peer would refuse a fresh
// endpoint's keys that no longer match its handshake's list).
Result<std::vector<transport::LocalRegionView>> StillAnnounced(
    const std::vector<transport::LocalRegionView>& announced, const MemoryRegistry& memory) {
  const std::vector<transport::LocalRegionView> now = memory.Snapshot();
  std::vector<transport::LocalRegionView> out;
  for (const transport::LocalRegionView& region : announced) {
    const auto same = std::find_if(now.begin(), now.end(), [&](const auto& r) {
      return r.id == region.id && r.address == region.address && r.length == region.length;
    });
    if (same == now.end()) {
      return FailedPrecondition(fmt::format(
          "region {} ({} bytes), announced to the peer at connect, has been deregistered since",
          region.id, region.length));
    }
    out.push_back(*same);
  }
  return out;
}

}  // namespace

void PeerConnection::StartRailRecovery(RailPlan plan) {
  if (striped_ == nullptr || plan.ctx.rejoin_backoff.count() <= 0) return;
  rail_plan_ = std::make_unique<RailPlan>(std::move(plan));
  const RailPlan& p = *rail_plan_;
  RailRecovery::Paths paths;
  paths.check = [&p](uint32_t) -> Status {
    return StillAnnounced(p.announced, p.ctx.memory).status();
  };
  paths.set_up = [this, &p](uint32_t rail,
                            Deadline deadline) -> Result<std::unique_ptr<transport::Endpoint>> {
    auto announced = StillAnnounced(p.announced, p.ctx.memory);
    if (!announced.ok()) return announced.status();
    const RailPair& pair = p.pairs[rail];
    const std::string& local = p.initiator ? pair.initiator : pair.acceptor;
    const std::string& far = p.initiator ? pair.acceptor : pair.initiator;
    return SetUpEndpoint(p.ctx, *p.transport, p.initiator, p.streams, control_, p.peer, remote_,
                         std::move(*announced), *memory_, *notifications_, deadline, local, far,
                         true);
  };
  RailRecovery::Options options;
  options.initiator = p.initiator;
  options.backoff = p.ctx.rejoin_backoff;
  options.max_backoff = std::max(p.ctx.rejoin_max_backoff, p.ctx.rejoin_backoff);
  // Short: a failed attempt holds the peer's end in its setup until then,
  // and the next attempt waits for it.
  options.attempt_timeout =
      std::min(p.ctx.connect_timeout, std::chrono::milliseconds(RailRecovery::kMostAttempt));
  auto recovery = RailRecovery::Start(control_, *striped_, std::move(paths), options);
  if (!recovery.ok()) return;
  recovery_ = std::move(recovery.value());
  // Before the connection is published: nothing has been posted yet.
  striped_->SetFence(
      [recovery = recovery_.get()](uint32_t rail, Deadline deadline) {
        return recovery->Fence(rail, deadline);
      },
      2 * options.attempt_timeout);
}

Result<transport::Transport*> ChooseTransport(const TransportList& ours, const Hello& hello,
                                              bool same_host) {
  auto fits = [&](const transport::Transport& t) {
    return Lists(hello.transports, t.name()) &&
           (same_host || !t.capabilities().same_host_only);
  };
  // Usable() last: it may open devices.
  auto usable = [&](const transport::Transport& t) { return fits(t) && t.Usable().ok(); };
  if (!hello.forced_transport.empty()) {
    for (const auto& t : ours) {
      if (t->name() != hello.forced_transport) continue;
      if (!Lists(hello.transports, t->name())) break;
      if (!fits(*t)) {
        return NotSupported(fmt::format("transport '{}' needs both peers on one host",
                                        hello.forced_transport));
      }
      if (Status status = t->Usable(); !status.ok()) {
        return status.WithContext(
            fmt::format("transport '{}' cannot run on the acceptor", hello.forced_transport));
      }
      return t.get();
    }
    return NotSupported(fmt::format("transport '{}' is not enabled on both peers (acceptor has: {})",
                                    hello.forced_transport, fmt::join(NamesOf(ours), ", ")));
  }
  transport::Transport* best = nullptr;
  for (const auto& t : ours) {
    if (!usable(*t)) continue;
    if (best == nullptr || t->capabilities().preference > best->capabilities().preference) {
      best = t.get();
    }
  }
  if (best == nullptr) {
    return NotSupported(fmt::format("no transport both peers allow (initiator: {}; acceptor: {})",
                                    fmt::join(hello.transports, ", "),
                                    fmt::join(NamesOf(ours), ", ")));
  }
  return best;
}

namespace {

// One connection attempt offering `offered`. When the handshake succeeded
// but the chosen transport's endpoint setup failed, `failed_transport`
// names it (so that the caller may retry without it).
Result<std::unique_ptr<PeerConnection>> ConnectOnce(const ConnectContext& ctx,
                                                    const HostPort& address,
                                                    const ConnectOptions& options,
                                                    const std::vector<std::string>& offered,
                                                    Deadline deadline,
                                                    std::string& failed_transport) {
  // An engine's listen address is published once it listens: nothing
  // there is an error now, not after connect_timeout.
  auto control = ConnectTcp(address, deadline, OnRefused::kFail);
  if (!control.ok()) return control.status();

  auto channel = AuthenticatedChannel::Initiate(*control, ctx.secret, deadline);
  if (!channel.ok()) return channel.status().WithContext("handshake");

  auto announced = ctx.memory.Snapshot();
  auto rail_ends = OfferedRailEnds(ctx.transports, offered, control->LocalHost(),
                                   options.rail_ends, options.rails);
  if (!rail_ends.ok()) return rail_ends.status();
  const uint32_t rails = options.rails != 0 ? options.rails
                                            : static_cast<uint32_t>(options.rail_ends.size());
  Hello hello{ctx.local,     offered,         options.transport, options.streams,
              DescribeRegions(announced), rails, *rail_ends};
  XFER_RETURN_IF_ERROR(channel->Send(EncodeHello(hello), "hello", deadline));
  auto bytes = channel->Receive(kMaxHandshakeBytes, "reply", deadline);
  if (!bytes.ok()) return bytes.status().WithContext("handshake");
  auto reply = DecodeHelloReply(*bytes);
  if (!reply.ok()) return reply.status().WithContext("handshake");
  if (reply->status != StatusCode::kOk) {
    return Status(reply->status, "peer refused the connection: " + reply->message);
  }
  auto* transport = [&]() -> transport::Transport* {
    for (const auto& t : ctx.transports) {
      if (t->name() == reply->transport) return t.get();
    }
    return nullptr;
  }();
  if (transport == nullptr || !Lists(offered, reply->transport) ||
      reply->streams > options.streams) {
    return ProtocolError(fmt::format("peer chose transport '{}' with {} streams, which was not offered",
                                     reply->transport, reply->streams));
  }
  XFER_RETURN_IF_ERROR(
      CheckChosenRails(reply->rails, *rail_ends, *transport, rails).WithContext("handshake"));
  transport::RemoteMemory remote(reply->regions);
  auto memory = std::make_unique<ConnectionMemory>(ctx.memory, ctx.devices);
  auto sink = ctx.inbox.NewSink(reply->identity.name);
  auto railed = SetUpRails(ctx, *transport, true, reply->streams, *control, reply->identity,
                           remote, announced, *memory, *sink, deadline, reply->rails);
  if (!railed.ok()) {
    failed_transport = std::string(transport->name());
    return railed.status();
  }
  PeerInfo info =
      MakeInfo(ctx, reply->identity, *transport, *railed, reply->streams, reply->regions);
  auto connection = std::make_unique<PeerConnection>(
      std::move(info), transport->capabilities(), std::move(control.value()), std::move(remote),
      std::move(memory), std::move(sink), std::move(railed->endpoint), railed->striped,
      ctx.devices, ctx.device_path, ctx.io_timeout);
  connection->StartRailRecovery({ctx, transport, true, reply->streams, reply->identity,
                                 reply->rails, std::move(announced)});
  return connection;
}

}  // namespace

Result<std::unique_ptr<PeerConnection>> ConnectToPeer(const ConnectContext& ctx,
                                                      const HostPort& address,
                                                      const ConnectOptions& options) {
  const Deadline deadline = Deadline::After(ctx.connect_timeout);
  if (!options.transport.empty() && !Lists(NamesOf(ctx.transports), options.transport)) {
    return InvalidArgument(fmt::format("transport '{}' is not enabled in this engine (have: {})",
                                       options.transport, fmt::join(NamesOf(ctx.transports), ", ")));
  }
  if (options.streams == 0 || options.streams > 64) {
    return InvalidArgument(fmt::format("streams must be 1..64, got {}", options.streams));
  }
  if (options.rails > kMaxRails) {
    return InvalidArgument(fmt::format("rails must be 0 (the transport's choice) or 1..{}, got {}",
                                       kMaxRails, options.rails));
  }
  if (options.rail_ends.size() > kMaxRails) {
    return InvalidArgument(fmt::format("at most {} rail ends may be named, not {}", kMaxRails,
                                       options.rail_ends.size()));
  }
  // Only transports this host can run are offered; a forced one that it
  // cannot run is an error naming why (verbs: no RDMA device, ...).
  Status unusable;
  std::vector<std::string> offered = UsableNames(ctx.transports, unusable);
  if (!options.transport.empty() && !Lists(offered, options.transport)) {
    for (const auto& t : ctx.transports) {
      if (t->name() != options.transport) continue;
      return t->Usable().WithContext(
          fmt::format("transport '{}' cannot run on this host", options.transport));
    }
  }
  if (offered.empty()) return unusable.WithContext("no enabled transport can run on this host");
  // Fallback: when the transport the acceptor chose fails its endpoint setup
  // (both sides learn of it: the transports report setup failures to each
  // other), try again without it, on a fresh control connection, within the
  // same deadline. The acceptor just sees one failed and one good accept.
  // A forced transport is never replaced.
  std::string first_failure;
  for (;;) {
    std::string failed;
    auto connection = ConnectOnce(ctx, address, options, offered, deadline, failed);
    if (connection.ok()) return connection;
    Status status = connection.status();
    if (!first_failure.empty()) status = status.WithContext(first_failure);
    if (failed.empty() || !options.transport.empty()) return status;
    std::erase(offered, failed);
    if (offered.empty() || deadline.expired()) return status;
    if (first_failure.empty()) {
      first_failure = fmt::format("after transport '{}' failed its setup ({}), falling back to {}",
                                  failed, connection.status().ToString(),
                                  fmt::join(offered, ", "));
    }
  }
}

Result<std::unique_ptr<PeerConnection>> AcceptFromPeer(const ConnectContext& ctx, Socket control) {
  const Deadline deadline = Deadline::After(ctx.connect_timeout);
  // Nothing of this engine (identity, transports, regions) goes out before
  // the channel stands: a peer that fails to authenticate learns nothing.
  auto channel = AuthenticatedChannel::Answer(control, ctx.secret, deadline);
  if (!channel.ok()) return channel.status().WithContext("handshake");
  auto bytes = channel->Receive(kMaxHandshakeBytes, "hello", deadline);
  if (!bytes.ok()) {
    // An initiator with another secret refuses this engine's proof and
    // hangs up: to this side, that is a refused peer too.
    if (channel->authenticated() && bytes.status().code() == StatusCode::kConnectionLost) {
      return PermissionDenied(
          "the peer hung up instead of proving it knows the secret (it has another one, or "
          "none)");
    }
    return bytes.status().WithContext("handshake");
  }
  auto hello = DecodeHello(*bytes);
  if (!hello.ok()) return hello.status().WithContext("handshake");

  HelloReply reply;
  reply.identity = ctx.local;
  auto chosen = ChooseTransport(ctx.transports, *hello, ctx.local.host.SameHostAs(hello->identity.host));
  if (!chosen.ok()) {
    reply.status = chosen.status().code();
    reply.message = chosen.status().message();
    // Best effort: the refusal is only a courtesy to the initiator.
    (void)channel->Send(EncodeHelloReply(reply), "reply", deadline);
    return chosen.status();
  }
  transport::Transport* transport = *chosen;
  reply.transport = std::string(transport->name());
  reply.streams = std::min(hello->streams, transport->capabilities().max_streams);
  auto announced = ctx.memory.Snapshot();
  reply.regions = DescribeRegions(announced);
  const auto offered_ends =
      std::find_if(hello->rail_ends.begin(), hello->rail_ends.end(),
                   [&](const TransportRailEnds& e) { return e.transport == transport->name(); });
  if (offered_ends != hello->rail_ends.end()) {
    reply.rails = PairRails(transport->RailCandidates(control.LocalHost()), offered_ends->ends,
                            hello->rails, transport->capabilities().max_rails);
  }
  XFER_RETURN_IF_ERROR(channel->Send(EncodeHelloReply(reply), "reply", deadline));

  transport::RemoteMemory remote(hello->regions);
  auto memory = std::make_unique<ConnectionMemory>(ctx.memory, ctx.devices);
  auto sink = ctx.inbox.NewSink(hello->identity.name);
  auto railed = SetUpRails(ctx, *transport, false, reply.streams, control, hello->identity, remote,
                           announced, *memory, *sink, deadline, reply.rails);
  if (!railed.ok()) return railed.status();
  PeerInfo info =
      MakeInfo(ctx, hello->identity, *transport, *railed, reply.streams, hello->regions);
  auto connection = std::make_unique<PeerConnection>(
      std::move(info), transport->capabilities(), std::move(control), std::move(remote),
      std::move(memory), std::move(sink), std::move(railed->endpoint), railed->striped,
      ctx.devices, ctx.device_path, ctx.io_timeout);
  connection->StartRailRecovery({ctx, transport, false, reply.streams, hello->identity,
                                 reply.rails, std::move(announced)});
  return connection;
}

}  // namespace xfer::core
