#include "transport/shm/shm_endpoint.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <thread>
#include <utility>

#include "common/request_access.h"
#include "transport/local_device.h"
#include "transport/notification_length.h"
#include "transport/shm/process_vm_copy.h"

namespace xfer::transport::shm {

// Admits one post for its lifetime unless the endpoint is closed.
class ShmEndpoint::PostScope {
 public:
  explicit PostScope(ShmEndpoint& endpoint) : endpoint_(endpoint) {
    endpoint_.active_posts_.fetch_add(1, std::memory_order_seq_cst);
    admitted_ = !endpoint_.closed_.load(std::memory_order_seq_cst);
  }
  ~PostScope() { endpoint_.active_posts_.fetch_sub(1, std::memory_order_release); }
  PostScope(const PostScope&) = delete;
  PostScope& operator=(const PostScope&) = delete;

  bool admitted() const { return admitted_; }

 private:
  ShmEndpoint& endpoint_;
  bool admitted_ = false;
};

namespace {

// A notification waiting for room in the peer's ring: spinning catches the
// peer's drain under way, sleeping after that keeps a slow reader from
// costing this side a core.
constexpr int kRingFullSpins = 1000;
constexpr auto kRingFullSleep = std::chrono::microseconds(50);

Status Closed() { return ConnectionLost("shm endpoint closed"); }

}  // namespace

ShmEndpoint::ShmEndpoint(PeerMapping mapping, RevocationTable revocations, int peer_pid,
                         std::unique_ptr<MessageChannel> channel,
                         Notifications notifications, std::chrono::milliseconds io_timeout,
                         const LocalMemory& local, cuda::DeviceRuntime& devices,
                         uint32_t streams)
    : mapping_(std::move(mapping)),
      revocations_(std::move(revocations)),
      peer_pid_(peer_pid),
      peer_(PeerLiveness::Watch(peer_pid)),
      channel_(std::move(channel)),
      inbound_(std::move(notifications.inbound)),
      outbound_(std::move(notifications.outbound)),
      io_timeout_(io_timeout),
      local_(local),
      devices_(devices),
      gpu_host_(devices.Available().ok()),
      streams_(streams == 0 ? 1 : streams),
      copy_streams_(devices) {}

ShmEndpoint::~ShmEndpoint() { Close(); }

void ShmEndpoint::Close() {
  std::lock_guard lock(close_mu_);
  if (closed_.exchange(true, std::memory_order_seq_cst)) return;
  // First the channel: it wakes a PostSend blocked in a write, so the wait
  // below is bounded by one memcpy or process_vm call.
  channel_->Close();
  while (active_posts_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
  // Device copies queued by earlier posts read and write the mappings (and
  // hold admissions in the peer's table, which is mapped too): they end
  // before anything is unmapped.
  device_completions_.Drain();
  mapping_.Release();
  // A peer stalled past io_timeout is the Revoke kTimeout case; Close has
  // no caller to tell, and the engine frees its own memory regardless.
  (void)revocations_.RevokeAll(Deadline::After(io_timeout_), [this] { return peer_.Exited(); });
}

Status ShmEndpoint::PostWrite(std::span<const TransferEntry> entries, TransferRequest& request,
                              uint32_t stream) {
  return PostOneSided(entries, request, true, stream);
}

Status ShmEndpoint::PostRead(std::span<const TransferEntry> entries, TransferRequest& request,
                             uint32_t stream) {
  return PostOneSided(entries, request, false, stream);
}

// A batch's entries resolved against the peer's regions. The regions of the
// first kCached entries are kept in fixed scratch, so that the common
// small batch resolves each remote range once and allocates nothing; the
// entries of a larger batch past them are resolved again when needed (a
// binary search over immutable state, cheaper than allocating).
class ShmEndpoint::ResolvedBatch {
 public:
  static constexpr size_t kCached = 16;

  ResolvedBatch(const ShmEndpoint& endpoint, std::span<const TransferEntry> entries,
                Access needed)
      : endpoint_(endpoint), entries_(entries), needed_(needed) {}

  // Resolves and routes every entry; the first failure is returned.
  Status ResolveAll() {
    for (size_t i = 0; i < entries_.size(); ++i) {
      auto region = endpoint_.mapping_.Resolve(entries_[i].remote, entries_[i].length, needed_);
      if (!region.ok()) return region.status();
      auto route = endpoint_.RouteFor(entries_[i], **region);
      if (!route.ok()) return route.status();
      if (i < kCached) regions_[i] = *region;
    }
    return Status::Ok();
  }

  size_t size() const { return entries_.size(); }
  const TransferEntry& entry(size_t i) const { return entries_[i]; }

  // REQUIRES (both): ResolveAll() returned OK; the mapping cannot change
  // meanwhile (Close() waits for the post).
  const PeerRegion& region(size_t i) const {
    if (i < kCached) return *regions_[i];
    return **endpoint_.mapping_.Resolve(entries_[i].remote, entries_[i].length, needed_);
  }
  // Routing is a few comparisons (and, on a GPU host, a registry lookup):
  // recomputed rather than stored.
  Route route(size_t i) const { return *endpoint_.RouteFor(entries_[i], region(i)); }

 private:
  const ShmEndpoint& endpoint_;
  const std::span<const TransferEntry> entries_;
  const Access needed_;
  // Left uninitialized: filled by ResolveAll before any read.
  std::array<const PeerRegion*, kCached> regions_;
};

Status ShmEndpoint::PostOneSided(std::span<const TransferEntry> entries, TransferRequest& request,
                                 bool write, uint32_t stream) {
  PostScope scope(*this);
  if (!scope.admitted()) return Closed();
  // The channel's socket is how we learn the peer died; its memory stays
  // mapped (the memfd lives while we map it), but the connection is over.
  if (channel_->broken()) return channel_->failure();
  if (entries.empty()) return InvalidArgument("shm: empty batch");
  // Every entry is resolved and admitted before any byte moves: a bad
  // entry leaves all memory untouched.
  ResolvedBatch batch(*this, entries, write ? Access::kRemoteWrite : Access::kRemoteRead);
  XFER_RETURN_IF_ERROR(batch.ResolveAll());
  XFER_RETURN_IF_ERROR(AdmitAll(batch));
  internal::RequestAccess::Start(request, 1);
  Status status;
  size_t moved = 0;
  std::vector<cuda::CopyStream*> device_streams;  // with copies of this batch started
  for (size_t i = 0; i < batch.size(); ++i) {
    // Device copies spread over the connection's streams' lanes, entry by
    // entry from the request's own stream.
    const auto lane = static_cast<uint32_t>((stream + i) % streams_);
    status = CopyEntry(batch.entry(i), batch.region(i), batch.route(i), write, lane,
                       device_streams);
    if (!status.ok()) break;
    moved += batch.entry(i).length;
  }
  if (!device_streams.empty()) {
    CompleteAfterDeviceCopies(batch, request, status, moved, device_streams);
    return Status::Ok();
  }
  // Before completing, so that a deregistration the peer orders after
  // learning of this completion does not wait on it.
  EndAll(batch, batch.size());
  if (device_completions_.busy()) {
    // Behind device requests still copying: completes after them, in
    // posting order.
    PendingCompletion pending{&request, status, moved, {}, {}, {}};
    if (device_completions_.Push(std::move(pending)).ok()) return Status::Ok();
  }
  internal::RequestAccess::Complete(request, status, moved);
  return Status::Ok();
}

// A prepared list whose every entry is a memcpy through our mapping.
class ShmEndpoint::MappedBatch final : public PreparedBatch {
 public:
  std::vector<uint8_t*> remote;          // per entry: our address of its remote range
  std::vector<RevocationSlot*> regions;  // each region the list reaches, once
};

Result<std::unique_ptr<PreparedBatch>> ShmEndpoint::Prepare(
    std::span<const TransferEntry> entries) {
  PostScope scope(*this);
  if (!scope.admitted()) return Closed();
  auto batch = std::make_unique<MappedBatch>();
  batch->remote.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const TransferEntry& e = entries[i];
    auto region = mapping_.Resolve(e.remote, e.length, Access::kNone);
    if (!region.ok()) return region.status().WithContext(fmt::format("entry {}", i));
    auto route = RouteFor(e, **region);
    if (!route.ok()) return route.status().WithContext(fmt::format("entry {}", i));
    if (route->path != Path::kMemcpy) return std::unique_ptr<PreparedBatch>();
    batch->remote.push_back(PeerMapping::Translate(**region, e.remote));
    RevocationSlot* slot = (*region)->revocation;
    if (std::find(batch->regions.begin(), batch->regions.end(), slot) == batch->regions.end()) {
      batch->regions.push_back(slot);
    }
  }
  return std::unique_ptr<PreparedBatch>(std::move(batch));
}

Status ShmEndpoint::PostPrepared(const PreparedBatch& prepared,
                                 std::span<const TransferEntry> entries,
                                 const PreparedSelection& selection, OpCode op,
                                 TransferRequest& request, uint32_t stream) {
  const auto& batch = static_cast<const MappedBatch&>(prepared);
  const bool write = op == OpCode::kWrite;
  if (device_completions_.busy()) {
    // Rare: keep posting order behind device requests the slow way.
    std::vector<TransferEntry> gathered(selection.size());
    for (size_t i = 0; i < gathered.size(); ++i) gathered[i] = entries[selection[i]];
    return PostOneSided(gathered, request, write, stream);
  }
  PostScope scope(*this);
  if (!scope.admitted()) return Closed();
  if (channel_->broken()) return channel_->failure();
  for (size_t k = 0; k < batch.regions.size(); ++k) {
    if (BeginCopy(*batch.regions[k])) continue;
    for (size_t j = 0; j < k; ++j) EndCopy(*batch.regions[j]);
    if (RevokedByClose(*batch.regions[k])) {
      return ConnectionLost("shm: the peer closed the connection");
    }
    return OutOfRange(fmt::format("shm: the prepared list reaches region id {}, which the peer "
                                  "has deregistered",
                                  batch.regions[k]->region_id));
  }
  internal::RequestAccess::Start(request, 1);
  size_t moved = 0;
  auto copy = [&](uint32_t index) {
    const TransferEntry& e = entries[index];
    uint8_t* remote = batch.remote[index];
    if (write) {
      std::memcpy(remote, e.local, e.length);
    } else {
      std::memcpy(e.local, remote, e.length);
    }
    moved += e.length;
  };
  if (selection.indices.empty()) {
    for (uint32_t i = selection.first, end = selection.first + selection.count; i < end; ++i) {
      copy(i);
    }
  } else {
    for (const uint32_t index : selection.indices) copy(index);
  }
  for (RevocationSlot* slot : batch.regions) EndCopy(*slot);
  internal::RequestAccess::Complete(request, Status::Ok(), moved);
  return Status::Ok();
}

void ShmEndpoint::CompleteAfterDeviceCopies(const ResolvedBatch& batch, TransferRequest& request,
                                            const Status& status, size_t moved,
                                            const std::vector<cuda::CopyStream*>& streams) {
  PendingCompletion pending{&request, status, moved, {}, {}, {}};
  Status marked;
  {
    std::lock_guard lock(device_mu_);
    for (cuda::CopyStream* stream : streams) {
      auto mark = stream->Mark();
      if (!mark.ok()) {
        marked = mark.status().WithContext("shm: device copy");
        break;
      }
      pending.marks.emplace_back(stream, *mark);
    }
  }
  for (size_t i = 0; i < batch.size(); ++i) pending.admitted.push_back(batch.region(i).revocation);
  if (marked.ok()) {
    Status pushed = device_completions_.Push(pending);
    if (pushed.ok()) return;
    marked = pushed;
  }
  // No mark or no completion thread: wait here, as the copies must end
  // before the admissions do.
  {
    std::lock_guard lock(device_mu_);
    for (cuda::CopyStream* stream : streams) (void)stream->Finish();
  }
  for (const auto& [stream, mark] : pending.marks) (void)stream->WaitMark(mark);
  EndAll(batch, batch.size());
  internal::RequestAccess::Complete(request, status.ok() ? marked : status, 0);
}

Status ShmEndpoint::AdmitAll(const ResolvedBatch& batch) const {
  for (size_t i = 0; i < batch.size(); ++i) {
    const PeerRegion& region = batch.region(i);
    if (!BeginCopy(*region.revocation)) {
      EndAll(batch, i);
      if (RevokedByClose(*region.revocation)) {
        return ConnectionLost("shm: the peer closed the connection");
      }
      return OutOfRange(fmt::format(
          "shm: remote range [{:#x}, +{}) lies in region id {}, which the peer has deregistered",
          batch.entry(i).remote, batch.entry(i).length, region.revocation->region_id));
    }
  }
  return Status::Ok();
}

void ShmEndpoint::EndAll(const ResolvedBatch& batch, size_t count) const {
  for (size_t i = 0; i < count; ++i) EndCopy(*batch.region(i).revocation);
}

Status ShmEndpoint::Revoke(const LocalRegionView& region, Deadline deadline) {
  return revocations_.Revoke(region.id, deadline, [this] { return peer_.Exited(); });
}

int ShmEndpoint::LocalDevice(const TransferEntry& entry) const {
  return gpu_host_ ? LocalDeviceOf(local_, devices_, entry.local, entry.length) : -1;
}

Result<ShmEndpoint::Route> ShmEndpoint::RouteFor(const TransferEntry& entry,
                                                  const PeerRegion& region) const {
  if (region.kind == MemoryKind::kCuda) {
    if (region.device_mapped == nullptr) {
      return NotSupported(fmt::format("shm: the peer's CUDA region at {:#x} is out of reach: {}",
                                      region.address, region.unreachable));
    }
    return Route{Path::kDevice, region.device};
  }
  const int local_device = LocalDevice(entry);
  if (local_device < 0) return Route{region.mapped != nullptr ? Path::kMemcpy : Path::kProcessVm, -1};
  if (region.mapped == nullptr) {
    return NotSupported(fmt::format(
        "shm: CUDA device memory cannot reach the peer's region at {:#x}: the peer registered "
        "that memory itself, so there is no descriptor to map, and process_vm cannot read device "
        "memory",
        region.address));
  }
  return Route{Path::kDevice, local_device};
}

Status ShmEndpoint::CopyEntry(const TransferEntry& entry, const PeerRegion& region,
                              const Route& route, bool write, uint32_t lane,
                              std::vector<cuda::CopyStream*>& device_streams) {
  switch (route.path) {
    case Path::kMemcpy: {
      uint8_t* remote = PeerMapping::Translate(region, entry.remote);
      if (write) {
        std::memcpy(remote, entry.local, entry.length);
      } else {
        std::memcpy(entry.local, remote, entry.length);
      }
      return Status::Ok();
    }
    case Path::kProcessVm:
      return write ? WriteToPeer(peer_pid_, entry.remote, entry.local, entry.length)
                   : ReadFromPeer(peer_pid_, entry.remote, entry.local, entry.length);
    case Path::kDevice: {
      uint8_t* remote = region.device_mapped != nullptr
                            ? region.device_mapped + (entry.remote - region.address)
                            : PeerMapping::Translate(region, entry.remote);
      return write ? StartDeviceCopy(route.device, lane, remote, entry.local, entry.length,
                                     device_streams)
                   : StartDeviceCopy(route.device, lane, entry.local, remote, entry.length,
                                     device_streams);
    }
  }
  return Internal("shm: unknown copy path");
}

Status ShmEndpoint::StartDeviceCopy(int device, uint32_t lane, void* destination,
                                    const void* source, size_t length,
                                    std::vector<cuda::CopyStream*>& started) {
  std::lock_guard lock(device_mu_);
  auto stream = copy_streams_.For(device, lane);
  if (!stream.ok()) return stream.status().WithContext("shm");
  XFER_RETURN_IF_ERROR((*stream)->Start(destination, source, length).WithContext("shm: device copy"));
  if (std::find(started.begin(), started.end(), *stream) == started.end()) {
    started.push_back(*stream);
  }
  return Status::Ok();
}

Status ShmEndpoint::PostSend(const void* data, size_t length, TransferRequest& request,
                             uint32_t /*stream*/) {
  PostScope scope(*this);
  if (!scope.admitted()) return Closed();
  return channel_->PostSend(data, length, request);
}

Status ShmEndpoint::PostNotify(std::span<const uint8_t> message, TransferRequest& request,
                               uint32_t /*stream*/) {
  PostScope scope(*this);
  if (!scope.admitted()) return Closed();
  XFER_RETURN_IF_ERROR(CheckNotificationLength(message.size()).WithContext("shm"));
  if (channel_->broken()) return channel_->failure();
  internal::RequestAccess::Start(request, 1);
  if (!device_completions_.busy()) {
    internal::RequestAccess::Complete(request, SendNotification(message), 0);
    return Status::Ok();
  }
  PendingCompletion pending{&request, Status::Ok(), 0, {}, {}, {}};
  pending.then = [this, copy = std::vector<uint8_t>(message.begin(), message.end())] {
    return SendNotification(copy);
  };
  Status pushed = device_completions_.Push(std::move(pending));
  // No completion thread: a notification published now would pass the
  // device requests queued there, so it fails instead.
  if (!pushed.ok()) internal::RequestAccess::Complete(request, pushed, 0);
  return Status::Ok();
}

Status ShmEndpoint::SendNotification(std::span<const uint8_t> message) {
  const Deadline deadline = Deadline::After(io_timeout_);
  for (int tries = 0;; ++tries) {
    if (channel_->broken()) return channel_->failure();
    const OutboundRing::Pushed pushed = outbound_->Push(message);
    // Rung once per full ring: the peer's progress thread then drains it.
    if (pushed.doorbell && (pushed.written || tries == 0)) {
      XFER_RETURN_IF_ERROR(channel_->RingDoorbell());
    }
    if (pushed.written) return Status::Ok();
    if (deadline.expired()) {
      const Status full = Timeout(fmt::format(
          "shm: the peer's notification ring stayed full for {} ms (the peer neither reads "
          "its notifications nor drains them)",
          io_timeout_.count()));
      channel_->Break(full);
      return full;
    }
    if (tries < kRingFullSpins) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(kRingFullSleep);
    }
  }
}

void ShmEndpoint::BreakUnlessOk(const Status& status) {
  if (!status.ok()) channel_->Break(status);
}

void ShmEndpoint::PollNotifications() { BreakUnlessOk(inbound_->Drain()); }

void ShmEndpoint::AwaitNotifications() { BreakUnlessOk(inbound_->Arm()); }

Status ShmEndpoint::PostRecv(void* buffer, size_t capacity, TransferRequest& request) {
  PostScope scope(*this);
  if (!scope.admitted()) return Closed();
  return channel_->PostRecv(buffer, capacity, request);
}

}  // namespace xfer::transport::shm
