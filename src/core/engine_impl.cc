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

// Posts a checked, direct (not staged) request with `post`, then its
// notification if it has one, as one request: the hold keeps the
// transfer's completion from ending it before the notification has joined.
template <typename Post>
Status PostThenNotify(transport::Endpoint& endpoint, Post&& post, TransferRequest& request,
                      uint32_t stream, std::span<const uint8_t> notification) {
  if (notification.empty()) return post();
  internal::RequestAccess::Hold(request);
  if (Status posted = post(); !posted.ok()) {
    internal::RequestAccess::Abandon(request);
    return posted;
  }
  // The transfer is under way: a notification the transport refuses now
  // (its queues filled meanwhile, the connection failed) is the request's
  // final status, and the peer never sees it.
  Status notified = endpoint.PostNotify(notification, request, stream);
  internal::RequestAccess::Release(
      request, notified.WithContext("the transfer started, its notification was not sent"));
  return Status::Ok();
}

Access Intersect(Access a, Access b) {
  return static_cast<Access>(static_cast<uint32_t>(a) & static_cast<uint32_t>(b));
}

// Entries of a list a selection takes, gathered where they are not one
// contiguous range: on the stack for the common batch, else on the heap.
class GatheredEntries {
 public:
  GatheredEntries(std::span<const TransferEntry> all,
                  const transport::PreparedSelection& selection) {
    if (selection.indices.empty()) {
      view_ = all.subspan(selection.first, selection.count);
      return;
    }
    TransferEntry* out = stack_.data();
    if (selection.size() > stack_.size()) {
      heap_.resize(selection.size());
      out = heap_.data();
    }
    for (size_t i = 0; i < selection.size(); ++i) out[i] = all[selection.indices[i]];
    view_ = {out, selection.size()};
  }
  std::span<const TransferEntry> view() const { return view_; }

 private:
  std::array<TransferEntry, 64> stack_;
  std::vector<TransferEntry> heap_;
  std::span<const TransferEntry> view_;
};

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
                 }) {
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
  return connection->info();
}

Status EngineImpl::Disconnect(PeerId peer) {
  if (!peers_.Remove(peer)) return closed_.NoPeer(peer);
  return Status::Ok();
}

Result<MemoryKind> EngineImpl::CheckLocal(const void* address, size_t length,
                                          const char* what) const {
  auto kind = memory_.Locate(AddressOfPointer(address), length, Access::kNone);
  if (!kind.ok()) return kind.status().WithContext(what);
  return kind;
}

// Every transport's messages are copied by the CPU, which cannot touch
// device memory.
Status EngineImpl::CheckMessageMemory(MemoryKind kind) {
  if (kind != MemoryKind::kCuda) return Status::Ok();
  return NotSupported(
      "send/recv of CUDA device memory is not supported on any transport; WRITE and READ move it");
}

// Memory only travels on a transport that says it carries its kind, or,
// on this side, through the connection's staging.
Status EngineImpl::CheckCarried(const PeerConnection& connection, MemoryKind local,
                                MemoryKind remote) const {
  const transport::Capabilities& caps = connection.capabilities();
  const bool local_moves = caps.Carries(local) || connection.Stages(local);
  if (local_moves && caps.Carries(remote)) return Status::Ok();
  const MemoryKind missing = local_moves ? remote : local;
  std::string why = fmt::format(
      "the {} transport does not carry {} memory in this build ({} memory on this side, {} "
      "memory on the peer's)",
      connection.info().transport,
      missing == MemoryKind::kCuda ? "CUDA device" : MemoryKindName(missing),
      MemoryKindName(local), MemoryKindName(remote));
  if (!local_moves) why += "; device path 'direct' forbids staging it";
  return NotSupported(why);
}

Status EngineImpl::CheckOneSided(const PeerConnection& connection, size_t entries) {
  const transport::Capabilities& caps = connection.capabilities();
  if (!caps.one_sided) {
    return NotSupported(
        fmt::format("the {} transport has no one-sided READ/WRITE", connection.info().transport));
  }
  if (entries > caps.max_entries_per_post) {
    return InvalidArgument(fmt::format(
        "a batch of {} entries is longer than the {} transport takes at once ({}); split it over "
        "several requests",
        entries, connection.info().transport, caps.max_entries_per_post));
  }
  return Status::Ok();
}

Status EngineImpl::CheckNotifications(const PeerConnection& connection) {
  if (connection.capabilities().notifications) return Status::Ok();
  return NotSupported(
      fmt::format("the {} transport carries no notifications", connection.info().transport));
}

Status EngineImpl::CheckTwoSided(const PeerConnection& connection) {
  if (connection.capabilities().two_sided) return Status::Ok();
  return NotSupported(
      fmt::format("the {} transport has no send/recv", connection.info().transport));
}

Status EngineImpl::Submit(PeerId peer, OpCode op, std::span<const TransferEntry> entries,
                          TransferRequest& request, uint32_t stream) {
  return SubmitTo(peer, op, entries, request, stream, {});
}

Status EngineImpl::Submit(PeerId peer, OpCode op, std::span<const TransferEntry> entries,
                          TransferRequest& request, const SubmitOptions& options) {
  if (!options.notification.empty()) {
    XFER_RETURN_IF_ERROR(transport::CheckNotificationLength(options.notification.size()));
  }
  return WithDeadline(peer, request, options.timeout, [&] {
    return SubmitTo(peer, op, entries, request, options.stream, BytesOf(options.notification));
  });
}

template <typename Post>
Status EngineImpl::WithDeadline(PeerId peer, TransferRequest& request,
                                std::chrono::nanoseconds timeout, Post&& post) {
  if (timeout.count() < 0) return InvalidArgument("a negative request timeout");
  if (timeout.count() == 0) return post();
  if (internal::RequestAccess::InFlight(request)) {
    return InvalidArgument("request is already in flight");
  }
  auto armed = deadlines_.Arm(request, peer, timeout);
  if (!armed.ok()) return armed.status();
  DeadlineWatcher::Entry* watch = *armed;
  Status posted = post();
  if (!posted.ok()) {
    deadlines_.Cancel(watch, request);
    return posted;
  }
  deadlines_.Start(watch);
  return posted;
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

Status EngineImpl::SubmitTo(PeerId peer, OpCode op, std::span<const TransferEntry> entries,
                            TransferRequest& request, uint32_t stream,
                            std::span<const uint8_t> notification) {
  if (entries.empty()) return InvalidArgument("empty transfer batch");
  if (internal::RequestAccess::InFlight(request)) {
    return InvalidArgument("request is already in flight");
  }
  auto connection = peers_.Find(peer);
  if (!connection) return closed_.NoPeer(peer);
  XFER_RETURN_IF_ERROR(CheckOneSided(*connection, entries.size()));
  if (!notification.empty()) XFER_RETURN_IF_ERROR(CheckNotifications(*connection));
  const Access needed = op == OpCode::kWrite ? Access::kRemoteWrite : Access::kRemoteRead;
  bool stages = false;
  uint64_t bytes = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const TransferEntry& e = entries[i];
    bytes += e.length;
    if (e.length == 0) return InvalidArgument(fmt::format("entry {} has zero length", i));
    auto local = CheckLocal(e.local, e.length, "local buffer");
    if (!local.ok()) return local.status();
    auto remote = connection->remote().Check(e.remote, e.length, needed);
    if (!remote.ok()) return remote.status().WithContext(fmt::format("entry {}", i));
    if (Status carried = CheckCarried(*connection, *local, (*remote)->kind); !carried.ok()) {
      return carried.WithContext(fmt::format("entry {}", i));
    }
    stages = stages || connection->Stages(*local);
  }
  // A compare, not a division, in the common case of an in-range stream.
  const uint32_t streams = connection->info().streams;
  if (stream >= streams) stream %= streams;
  // While staged requests are pending, a direct one queues behind them:
  // requests on one stream complete in posting order. A large request on a
  // transport that copies inside its posts is moved by the pipeline's
  // thread too (offloaded), so that this call returns at once.
  const bool offload = connection->Offloads(bytes);
  if (stages || offload || connection->staging().busy()) {
    auto staged = StagedEntries(*connection, entries, offload);
    if (!staged.ok()) return staged.status();
    return connection->staging().Submit(op, std::move(*staged), request, stream, notification);
  }
  auto& endpoint = connection->endpoint();
  return PostThenNotify(
      endpoint,
      [&] {
        return op == OpCode::kWrite ? endpoint.PostWrite(entries, request, stream)
                                    : endpoint.PostRead(entries, request, stream);
      },
      request, stream, notification);
}

Status EngineImpl::Notify(PeerId peer, std::string_view message, TransferRequest& request,
                          uint32_t stream) {
  XFER_RETURN_IF_ERROR(transport::CheckNotificationLength(message.size()));
  if (internal::RequestAccess::InFlight(request)) {
    return InvalidArgument("request is already in flight");
  }
  auto connection = peers_.Find(peer);
  if (!connection) return closed_.NoPeer(peer);
  XFER_RETURN_IF_ERROR(CheckNotifications(*connection));
  const uint32_t streams = connection->info().streams;
  if (stream >= streams) stream %= streams;
  // Behind staged requests still running: they were posted before.
  if (connection->staging().busy()) {
    return connection->staging().Submit(OpCode::kWrite, {}, request, stream, BytesOf(message));
  }
  return connection->endpoint().PostNotify(BytesOf(message), request, stream);
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
  XFER_RETURN_IF_ERROR(CheckOneSided(*connection, 1));
  // Before the checks: a deregistration racing them makes the first
  // submission look again.
  const uint64_t removals = memory_.removals();
  std::vector<uint64_t> local_regions;
  local_regions.reserve(entries.size());
  Access granted = Access::kRemoteReadWrite;
  bool stages = false;
  for (size_t i = 0; i < entries.size(); ++i) {
    const TransferEntry& e = entries[i];
    if (e.length == 0) return InvalidArgument(fmt::format("entry {} has zero length", i));
    auto local = CheckLocal(e.local, e.length, "local buffer");
    if (!local.ok()) return local.status().WithContext(fmt::format("entry {}", i));
    local_regions.push_back(memory_.RegionIdOf(AddressOfPointer(e.local), e.length));
    auto remote = connection->remote().Check(e.remote, e.length, Access::kNone);
    if (!remote.ok()) return remote.status().WithContext(fmt::format("entry {}", i));
    granted = Intersect(granted, (*remote)->access);
    if (Status carried = CheckCarried(*connection, *local, (*remote)->kind); !carried.ok()) {
      return carried.WithContext(fmt::format("entry {}", i));
    }
    stages = stages || connection->Stages(*local);
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
  return WithDeadline(list->peer(), request, options.timeout, [&] {
    return SubmitSelection(*list, op, {first, count, {}}, request, options);
  });
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
  return WithDeadline(list->peer(), request, options.timeout, [&] {
    return SubmitSelection(*list, op, {0, 0, indices}, request, options);
  });
}

Status EngineImpl::SubmitSelection(internal::PreparedList& list, OpCode op,
                                   const transport::PreparedSelection& selection,
                                   TransferRequest& request, const SubmitOptions& options) {
  if (internal::RequestAccess::InFlight(request)) {
    return InvalidArgument("request is already in flight");
  }
  if (list.invalid()) return list.why_invalid();
  if (memory_.removals() != list.removals_seen()) XFER_RETURN_IF_ERROR(RecheckLocalRegions(list));
  const Access needed = op == OpCode::kWrite ? Access::kRemoteWrite : Access::kRemoteRead;
  if (!HasAccess(list.granted(), needed)) {
    return PermissionDenied(fmt::format("a region of the prepared list does not grant remote {}",
                                        op == OpCode::kWrite ? "write" : "read"));
  }
  const std::span<const uint8_t> notification = BytesOf(options.notification);
  if (!notification.empty()) {
    XFER_RETURN_IF_ERROR(transport::CheckNotificationLength(notification.size()));
  }
  auto connection = peers_.Find(list.peer());
  if (!connection || &*connection != list.connection()) {
    return NotFound(fmt::format("the prepared list's connection to peer {} is closed", list.peer()));
  }
  XFER_RETURN_IF_ERROR(CheckOneSided(*connection, selection.size()));
  if (!notification.empty()) XFER_RETURN_IF_ERROR(CheckNotifications(*connection));
  uint32_t stream = options.stream;
  const uint32_t streams = connection->info().streams;
  if (stream >= streams) stream %= streams;
  // The bytes of the selection, only where they decide something.
  uint64_t bytes = 0;
  if (connection->capabilities().offload_from_bytes != 0) {
    for (size_t i = 0; i < selection.size(); ++i) bytes += list.entries()[selection[i]].length;
  }
  const bool offload = connection->Offloads(bytes);
  if (list.stages() || offload || connection->staging().busy()) {
    const GatheredEntries gathered(list.entries(), selection);
    auto staged = StagedEntries(*connection, gathered.view(), offload);
    if (!staged.ok()) return staged.status();
    return connection->staging().Submit(op, std::move(*staged), request, stream, notification);
  }
  auto& endpoint = connection->endpoint();
  if (const transport::PreparedBatch* batch = list.batch()) {
    Status status = PostThenNotify(
        endpoint,
        [&] { return endpoint.PostPrepared(*batch, list.entries(), selection, op, request, stream); },
        request, stream, notification);
    // The transport found a region the peer revoked: the list can never
    // be submitted whole again.
    if (status.code() == StatusCode::kOutOfRange) list.Invalidate(status);
    return status;
  }
  const GatheredEntries gathered(list.entries(), selection);
  return PostThenNotify(
      endpoint,
      [&] {
        return op == OpCode::kWrite ? endpoint.PostWrite(gathered.view(), request, stream)
                                    : endpoint.PostRead(gathered.view(), request, stream);
      },
      request, stream, notification);
}

Status EngineImpl::RecheckLocalRegions(internal::PreparedList& list) const {
  const uint64_t removals = memory_.removals();
  const auto entries = list.entries();
  const auto regions = list.local_regions();
  for (size_t i = 0; i < entries.size(); ++i) {
    if (memory_.RegionIdOf(AddressOfPointer(entries[i].local), entries[i].length) != regions[i]) {
      list.Invalidate(FailedPrecondition(fmt::format(
          "entry {}'s local region {} was deregistered", i, regions[i])));
      return list.why_invalid();
    }
  }
  list.set_removals_seen(removals);
  return Status::Ok();
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

Result<std::vector<StagedEntry>> EngineImpl::StagedEntries(
    const PeerConnection& connection, std::span<const TransferEntry> entries, bool offload) const {
  std::vector<StagedEntry> staged;
  staged.reserve(entries.size());
  for (const TransferEntry& e : entries) {
    // Checked by Submit a moment ago, unless the caller deregistered it
    // meanwhile.
    auto kind = CheckLocal(e.local, e.length, "local buffer");
    if (!kind.ok()) return kind.status();
    int device = -1;
    if (*kind == MemoryKind::kCuda) {
      auto info = devices_->Classify(e.local, e.length);
      if (info.ok() && info->device) device = info->ordinal;
    }
    const bool bounce = connection.Stages(*kind);
    staged.push_back({e, bounce, device, offload && !bounce});
  }
  return staged;
}

Status EngineImpl::PostSend(PeerId peer, const void* data, size_t length,
                            TransferRequest& request, uint32_t stream) {
  if (length == 0) return InvalidArgument("zero-length send");
  if (internal::RequestAccess::InFlight(request)) {
    return InvalidArgument("request is already in flight");
  }
  auto kind = CheckLocal(data, length, "send buffer");
  if (!kind.ok()) return kind.status();
  XFER_RETURN_IF_ERROR(CheckMessageMemory(*kind));
  auto connection = peers_.Find(peer);
  if (!connection) return closed_.NoPeer(peer);
  XFER_RETURN_IF_ERROR(CheckTwoSided(*connection));
  const uint32_t streams = connection->info().streams;
  return connection->endpoint().PostSend(data, length, request,
                                         stream < streams ? stream : stream % streams);
}

Status EngineImpl::PostRecv(PeerId peer, void* buffer, size_t capacity, TransferRequest& request) {
  if (capacity == 0) return InvalidArgument("zero-capacity receive");
  if (internal::RequestAccess::InFlight(request)) {
    return InvalidArgument("request is already in flight");
  }
  auto kind = CheckLocal(buffer, capacity, "receive buffer");
  if (!kind.ok()) return kind.status();
  XFER_RETURN_IF_ERROR(CheckMessageMemory(*kind));
  auto connection = peers_.Find(peer);
  if (!connection) return closed_.NoPeer(peer);
  XFER_RETURN_IF_ERROR(CheckTwoSided(*connection));
  return connection->endpoint().PostRecv(buffer, capacity, request);
}

}  // namespace xfer::core
