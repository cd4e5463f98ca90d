#include "core/engine_impl.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "common/address.h"
#include "common/request_access.h"
#include "transport/notification_length.h"

namespace xfer::core {
namespace {

// How often the accept loop wakes to notice the engine is stopping.
constexpr auto kAcceptPoll = std::chrono::milliseconds(100);

std::span<const uint8_t> BytesOf(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

EngineOptions WithoutSecret(EngineOptions options) {
  options.secret.clear();
  return options;
}

Access Intersect(Access a, Access b) {
  return static_cast<Access>(static_cast<uint32_t>(a) & static_cast<uint32_t>(b));
}

// What EngineOptions says of failover, as striped connections take it.
StripedEndpoint::Options FailoverOptions(const EngineOptions& options) {
  StripedEndpoint::Options failover;
  failover.max_retries = options.slice_retries;
  failover.slice_timeout =
      options.slice_timeout.count() > 0 ? options.slice_timeout : options.io_timeout / 2;
  return failover;
}

}  // namespace

EngineImpl::EngineImpl(const EngineOptions& options, std::optional<SharedSecret> secret,
                       TransportList transports, std::unique_ptr<Listener> listener)
    : options_(WithoutSecret(options)),
      secret_(std::move(secret)),
      identity_{options.name, static_cast<int32_t>(getpid()), LocalHostIdentity()},
      transports_(std::move(transports)),
      devices_(cuda::DeviceRuntime::Create()),
      memory_(*devices_),
      listener_(std::move(listener)),
      deadlines_([this](PeerId peer, TransferRequest& request) {
                   return ExpireRequest(peer, request);
                 },
                 [this](PeerId peer) {
                   closed_.Record(peer,
                                  "a request's deadline (SubmitOptions::timeout) passed while "
                                  "its transport held it, which only closing the connection "
                                  "stops");
                   (void)Disconnect(peer);
                 }),
      submit_(peers_, closed_, memory_, *devices_, deadlines_) {
  if (listener_) accept_thread_ = std::thread([this] { AcceptLoop(); });
}

EngineImpl::~EngineImpl() {
  deadlines_.Stop();
  stopping_.store(true);
  if (accept_thread_.joinable()) accept_thread_.join();
  for (PeerId id : peers_.Ids()) peers_.Remove(id);
}

std::string EngineImpl::listen_address() const {
  return listener_ ? FormatHostPort(listener_->local_address()) : std::string();
}

ConnectContext EngineImpl::Context() {
  return ConnectContext{identity_,
                        transports_,
                        memory_,
                        *devices_,
                        options_.connect_timeout,
                        options_.io_timeout,
                        FailoverOptions(options_),
                        options_.rail_rejoin_backoff,
                        options_.rail_rejoin_max_backoff,
                        secret_ ? &*secret_ : nullptr,
                        options_.device_path,
                        inbox_};
}

void EngineImpl::AcceptLoop() {
  while (!stopping_.load()) {
    auto socket = listener_->Accept(Deadline::After(kAcceptPoll));
    if (!socket.ok()) continue;  // timeouts are the idle case
    // The handshake runs here, bounded by connect_timeout: a peer that
    // stalls delays the next accept by at most that long.
    std::shared_lock setup(setup_mu_);
    const std::string from = socket->PeerHost();
    auto connection = AcceptFromPeer(Context(), std::move(socket.value()));
    if (!connection.ok()) {
      if (connection.status().code() == StatusCode::kPermissionDenied) {
        LogRefusal(from, connection.status());
      }
      std::lock_guard lock(accepted_mu_);
      last_accept_error_ = connection.status().ToString();
      continue;
    }
    auto id = Publish(std::move(connection.value()));
    setup.unlock();
    std::lock_guard lock(accepted_mu_);
    if (!id.ok()) {
      last_accept_error_ = id.status().ToString();
      continue;
    }
    accepted_.push_back(*id);
    accepted_cv_.notify_all();
  }
}

void EngineImpl::LogRefusal(const std::string& from, const Status& why) const {
  const std::string line = fmt::format("xfer engine '{}': refused a connection from {}: {}",
                                       options_.name, from.empty() ? "an unknown address" : from,
                                       why.message());
  if (options_.refusal_log) {
    options_.refusal_log(line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

Result<MemoryRegion> EngineImpl::AllocateMemory(size_t length, const MemoryOptions& options) {
  return memory_.Allocate(length, options);
}

Result<MemoryRegion> EngineImpl::RegisterMemory(void* address, size_t length,
                                                const MemoryOptions& options) {
  return memory_.Register(address, length, options.access);
}

Status EngineImpl::DeregisterMemory(const MemoryRegion& region) {
  std::unique_lock setup(setup_mu_);
  return memory_.Deregister(region, [this](const transport::LocalRegionView& view) {
    const auto peers = peers_.Connections();
    // One deadline for all: a stalled peer costs io_timeout once, not per peer.
    const Deadline deadline = Deadline::After(options_.io_timeout);
    Status first_failure;
    for (const auto& connection : peers) {
      Status status = connection->endpoint().Revoke(view, deadline);
      if (!status.ok() && first_failure.ok()) {
        first_failure = status.WithContext(fmt::format(
            "revoking region {} from peer '{}'", view.id, connection->info().name));
      }
    }
    return first_failure;
  });
}

Result<PeerId> EngineImpl::Connect(std::string_view address, const ConnectOptions& options) {
  auto where = ParseHostPort(address);
  if (!where.ok()) return where.status();
  std::shared_lock setup(setup_mu_);
  auto connection = ConnectToPeer(Context(), *where, options);
  if (!connection.ok()) return connection.status();
  auto id = Publish(std::move(connection.value()));
  setup.unlock();
  return id;
}

Result<PeerId> EngineImpl::Publish(std::unique_ptr<PeerConnection> connection) {
  PeerConnection& published = *connection;
  auto id = peers_.Add(std::move(connection));
  if (!id.ok()) return id;
  // Still alive: only Disconnect(*id) or the engine's end removes it, and
  // nobody has the id yet.
  published.notifications().Bind(*id);
  PinIfPeerHasDeviceMemory(*id);
  return id;
}

void EngineImpl::PinIfPeerHasDeviceMemory(PeerId peer) {
  auto connection = peers_.Find(peer);
  if (!connection) return;
  const auto& regions = connection->info().regions;
  const bool device = std::any_of(regions.begin(), regions.end(), [](const RemoteRegion& r) {
    return r.kind == MemoryKind::kCuda;
  });
  // A refused region stays pageable; its copies take the driver's slower
  // path (MemoryRegistry, Pinning).
  if (device) (void)memory_.PinHostRegions();
}

Result<PeerId> EngineImpl::WaitForPeer(std::chrono::milliseconds timeout) {
  if (!listener_) return NotSupported("this engine is not listening");
  std::unique_lock lock(accepted_mu_);
  if (!accepted_cv_.wait_for(lock, timeout, [this] { return !accepted_.empty(); })) {
    std::string why = fmt::format("no peer connected to {} within {} ms", listen_address(),
                                  timeout.count());
    if (!last_accept_error_.empty()) why += " (last rejected connection: " + last_accept_error_ + ")";
    return Timeout(why);
  }
  PeerId id = accepted_.front();
  accepted_.pop_front();
  return id;
}

Result<PeerInfo> EngineImpl::GetPeerInfo(PeerId peer) const {
  auto connection = peers_.Find(peer);
  if (!connection) return closed_.NoPeer(peer);
  return connection->InfoNow();
}

Status EngineImpl::Disconnect(PeerId peer) {
  if (!peers_.Remove(peer)) return closed_.NoPeer(peer);
  return Status::Ok();
}

Status EngineImpl::Submit(PeerId peer, OpCode op, std::span<const TransferEntry> entries,
                          TransferRequest& request, uint32_t stream) {
  return submit_.Post({.peer = peer, .what = TransferOperation{op, entries}, .stream = stream},
                      request);
}

Status EngineImpl::Submit(PeerId peer, OpCode op, std::span<const TransferEntry> entries,
                          TransferRequest& request, const SubmitOptions& options) {
  return submit_.Post({.peer = peer,
                       .what = TransferOperation{op, entries},
                       .stream = options.stream,
                       .notification = BytesOf(options.notification),
                       .timeout = options.timeout},
                      request);
}

bool EngineImpl::ExpireRequest(PeerId peer, TransferRequest& request) {
  const Status why = Timeout("the request's deadline (SubmitOptions::timeout) passed");
  internal::RequestAccess::Preempt(request, why);
  auto connection = peers_.Find(peer);
  // Gone: closing it fails the request already.
  if (!connection) return false;
  const StagingPipeline::Cancelled found = connection->staging().Cancel(request, why);
  if (found == StagingPipeline::Cancelled::kDropped) return false;
  // Running in the pipeline over a transport whose posts finish inside the
  // call (an offloaded copy): it stops after the post in hand, with no wait
  // on the peer, and the connection carries on.
  if (found == StagingPipeline::Cancelled::kStopping &&
      connection->capabilities().offload_from_bytes != 0) {
    return false;
  }
  // Its work is with the transport: only closing the connection stops it.
  return true;
}

Status EngineImpl::Cancel(PeerId peer, TransferRequest& request) {
  if (!internal::RequestAccess::InFlight(request)) {
    return NotFound("the request is not in flight");
  }
  auto connection = peers_.Find(peer);
  if (!connection) return closed_.NoPeer(peer);
  const Status why = Cancelled("cancelled by Engine::Cancel");
  // Before the pipeline completes it: a request dropped from its queue is
  // completed right there, and must not be touched after.
  internal::RequestAccess::Preempt(request, why);
  (void)connection->staging().Cancel(request, why);
  return Status::Ok();
}

Status EngineImpl::Notify(PeerId peer, std::string_view message, TransferRequest& request,
                          uint32_t stream) {
  return submit_.Post(
      {.peer = peer, .what = NotifyOperation{}, .stream = stream, .notification = BytesOf(message)},
      request);
}

Result<PreparedTransfers> EngineImpl::PrepareTransfers(PeerId peer,
                                                       std::span<const TransferEntry> entries) {
  if (entries.empty()) return InvalidArgument("an empty prepared list");
  if (entries.size() > std::numeric_limits<uint32_t>::max()) {
    return InvalidArgument(fmt::format("a prepared list holds at most {} entries, not {}",
                                       std::numeric_limits<uint32_t>::max(), entries.size()));
  }
  auto connection = peers_.Find(peer);
  if (!connection) return closed_.NoPeer(peer);
  XFER_RETURN_IF_ERROR(SubmitPipeline::CheckOneSided(*connection, 1));
  // Before the checks: a deregistration racing them makes the first
  // submission look again.
  const uint64_t removals = memory_.removals();
  std::vector<uint64_t> local_regions;
  local_regions.reserve(entries.size());
  Access granted = Access::kRemoteReadWrite;
  bool stages = false;
  for (size_t i = 0; i < entries.size(); ++i) {
    const TransferEntry& e = entries[i];
    auto checked = submit_.CheckEntry(*connection, e, i, Access::kNone);
    if (!checked.ok()) return checked.status();
    local_regions.push_back(memory_.RegionIdOf(AddressOfPointer(e.local), e.length));
    granted = Intersect(granted, checked->remote->access);
    stages = stages || checked->stages;
  }
  auto list = std::make_shared<internal::PreparedList>(
      peer, &*connection, std::vector<TransferEntry>(entries.begin(), entries.end()),
      std::move(local_regions), granted, stages, removals);
  // A staged list takes Submit's staged path: the transport never sees the
  // caller's buffers, so it has nothing to prepare.
  if (!stages) {
    auto batch = connection->endpoint().Prepare(entries);
    if (!batch.ok()) return batch.status();
    list->set_batch(std::move(batch.value()));
  }
  return PreparedTransfers(std::move(list));
}

Status EngineImpl::SubmitPrepared(const PreparedTransfers& handle, OpCode op, uint32_t first,
                                  uint32_t count, TransferRequest& request,
                                  const SubmitOptions& options) {
  internal::PreparedList* list = handle.list();
  if (list == nullptr) return InvalidArgument("an empty PreparedTransfers handle");
  const size_t size = list->entries().size();
  if (count == 0) {
    return InvalidArgument(
        "count 0: a submission takes at least one entry of the prepared list; submit nothing "
        "instead");
  }
  if (first > size || count > size - first) {
    return InvalidArgument(fmt::format("entries [{}, +{}) are not in the {}-entry prepared list",
                                       first, count, size));
  }
  return submit_.Post({.what = PreparedOperation{list, op, {first, count, {}}},
                       .stream = options.stream,
                       .notification = BytesOf(options.notification),
                       .timeout = options.timeout},
                      request);
}

Status EngineImpl::SubmitPrepared(const PreparedTransfers& handle, OpCode op,
                                  std::span<const uint32_t> indices, TransferRequest& request,
                                  const SubmitOptions& options) {
  internal::PreparedList* list = handle.list();
  if (list == nullptr) return InvalidArgument("an empty PreparedTransfers handle");
  if (indices.empty()) {
    return InvalidArgument(
        "an empty index list selects no entry of the prepared list; submit nothing instead (it "
        "never means every entry)");
  }
  const size_t size = list->entries().size();
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] >= size) {
      return InvalidArgument(fmt::format("index {} (at {}) is not in the {}-entry prepared list",
                                         indices[i], i, size));
    }
  }
  return submit_.Post({.what = PreparedOperation{list, op, {0, 0, indices}},
                       .stream = options.stream,
                       .notification = BytesOf(options.notification),
                       .timeout = options.timeout},
                      request);
}

std::vector<Notification> EngineImpl::GetNotifications(std::chrono::nanoseconds timeout,
                                                       PeerId from) {
  // Notifications waiting in shared memory (shm's ring) are handed over on
  // this thread first: a reader that polls sees them with no thread woken.
  ForEachEndpoint(from, [](transport::Endpoint& endpoint) { endpoint.PollNotifications(); });
  std::vector<Notification> taken = inbox_.Take(std::chrono::nanoseconds(0), from);
  if (!taken.empty() || timeout <= std::chrono::nanoseconds(0)) return taken;
  ForEachEndpoint(from, [](transport::Endpoint& endpoint) { endpoint.AwaitNotifications(); });
  return inbox_.Take(timeout, from);
}

void EngineImpl::ForEachEndpoint(PeerId peer,
                                 const std::function<void(transport::Endpoint&)>& action) {
  if (peer != 0) {
    if (auto connection = peers_.Find(peer)) action(connection->endpoint());
    return;
  }
  for (const auto& connection : peers_.Connections()) action(connection->endpoint());
}

Status EngineImpl::PostSend(PeerId peer, const void* data, size_t length,
                            TransferRequest& request, uint32_t stream) {
  return submit_.Post({.peer = peer, .what = SendOperation{data, length}, .stream = stream},
                      request);
}

Status EngineImpl::PostRecv(PeerId peer, void* buffer, size_t capacity, TransferRequest& request) {
  return submit_.Post({.peer = peer, .what = RecvOperation{buffer, capacity}}, request);
}

}  // namespace xfer::core
