#include "core/submit_pipeline.h"

#include <fmt/format.h>

#include <array>
#include <string>
#include <type_traits>

#include "common/address.h"
#include "common/request_access.h"
#include "transport/notification_length.h"

namespace xfer::core {
namespace {

template <typename Kind>
constexpr bool kTwoSided =
    std::is_same_v<Kind, SendOperation> || std::is_same_v<Kind, RecvOperation>;

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

// A checked batch of entries, posted directly, with its notification.
inline Status PostEntries(transport::Endpoint& endpoint, OpCode op,
                          std::span<const TransferEntry> entries, TransferRequest& request,
                          uint32_t stream, std::span<const uint8_t> notification) {
  return PostThenNotify(
      endpoint,
      [&] {
        return op == OpCode::kWrite ? endpoint.PostWrite(entries, request, stream)
                                    : endpoint.PostRead(entries, request, stream);
      },
      request, stream, notification);
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

Access NeededBy(OpCode op) {
  return op == OpCode::kWrite ? Access::kRemoteWrite : Access::kRemoteRead;
}

// Every transport's messages are copied by the CPU, which cannot touch
// device memory.
Status CheckMessageMemory(MemoryKind kind) {
  if (kind != MemoryKind::kCuda) return Status::Ok();
  return NotSupported(
      "send/recv of CUDA device memory is not supported on any transport; WRITE and READ move it");
}

Status CheckNotifications(const PeerConnection& connection) {
  if (connection.capabilities().notifications) return Status::Ok();
  return NotSupported(
      fmt::format("the {} transport carries no notifications", connection.info().transport));
}

Status CheckTwoSided(const PeerConnection& connection) {
  if (connection.capabilities().two_sided) return Status::Ok();
  return NotSupported(
      fmt::format("the {} transport has no send/recv", connection.info().transport));
}

}  // namespace

// The stages below are forced inline into Run: left to itself, GCC calls
// each out of line, which cost an 8-byte shm write_bw about 5% of its
// message rate against the per-call code this pipeline replaced (perf,
// side by side on this 2-core host).
Status SubmitPipeline::Post(const Operation& operation, TransferRequest& request) {
  return std::visit([&](const auto& what) { return Run(operation, what, request); },
                    operation.what);
}

template <typename Kind>
Status SubmitPipeline::Run(const Operation& operation, const Kind& what, TransferRequest& request) {
  XFER_RETURN_IF_ERROR(Admit(operation, what, request));
  PeerTable::Pin connection = Resolve(operation, what);
  if (!connection) return Unresolved(operation, what);
  Facts facts;
  XFER_RETURN_IF_ERROR(Check(operation, what, *connection, facts));
  const uint32_t stream = connection->StreamOf(operation.stream);
  if (operation.timeout.count() == 0) {
    return Route(operation, what, facts, *connection, stream, request);
  }
  // Armed before the post, whose completion may come at once; started
  // only once the post succeeded.
  PeerId peer = operation.peer;
  if constexpr (std::is_same_v<Kind, PreparedOperation>) peer = what.list->peer();
  auto watch = deadlines_.Arm(request, peer, operation.timeout);
  if (!watch.ok()) return watch.status();
  Status posted = Route(operation, what, facts, *connection, stream, request);
  if (!posted.ok()) {
    deadlines_.Cancel(*watch, request);
    return posted;
  }
  deadlines_.Start(*watch);
  return posted;
}

template <typename Kind>
[[gnu::always_inline]] inline Status SubmitPipeline::Admit(const Operation& operation,
                                                           const Kind& what,
                                                           const TransferRequest& request) const {
  if (operation.timeout.count() < 0) return InvalidArgument("a negative request timeout");
  if (internal::RequestAccess::InFlight(request)) {
    return InvalidArgument("request is already in flight");
  }
  if (!operation.notification.empty()) {
    XFER_RETURN_IF_ERROR(transport::CheckNotificationLength(operation.notification.size()));
  }
  if constexpr (std::is_same_v<Kind, TransferOperation>) {
    if (what.entries.empty()) return InvalidArgument("empty transfer batch");
  } else if constexpr (std::is_same_v<Kind, PreparedOperation>) {
    internal::PreparedList& list = *what.list;
    if (list.invalid()) return list.why_invalid();
    if (memory_.removals() != list.removals_seen()) {
      XFER_RETURN_IF_ERROR(RecheckLocalRegions(list));
    }
    if (!HasAccess(list.granted(), NeededBy(what.op))) {
      return PermissionDenied(fmt::format("a region of the prepared list does not grant remote {}",
                                          what.op == OpCode::kWrite ? "write" : "read"));
    }
  } else if constexpr (std::is_same_v<Kind, SendOperation>) {
    if (what.length == 0) return InvalidArgument("zero-length send");
    auto kind = CheckLocal(what.data, what.length, "send buffer");
    return kind.ok() ? CheckMessageMemory(*kind) : kind.status();
  } else if constexpr (std::is_same_v<Kind, RecvOperation>) {
    if (what.capacity == 0) return InvalidArgument("zero-capacity receive");
    auto kind = CheckLocal(what.buffer, what.capacity, "receive buffer");
    return kind.ok() ? CheckMessageMemory(*kind) : kind.status();
  }
  return Status::Ok();
}

template <typename Kind>
[[gnu::always_inline]] inline PeerTable::Pin SubmitPipeline::Resolve(const Operation& operation,
                                                                     const Kind& what) const {
  if constexpr (std::is_same_v<Kind, PreparedOperation>) {
    // Only through the connection the list was prepared on: the peer may
    // have reconnected under a new id.
    PeerTable::Pin connection = peers_.Find(what.list->peer());
    if (connection && &*connection != what.list->connection()) return {};
    return connection;
  } else {
    return peers_.Find(operation.peer);
  }
}

template <typename Kind>
Status SubmitPipeline::Unresolved(const Operation& operation, const Kind& what) const {
  if constexpr (std::is_same_v<Kind, PreparedOperation>) {
    return NotFound(
        fmt::format("the prepared list's connection to peer {} is closed", what.list->peer()));
  } else {
    return closed_.NoPeer(operation.peer);
  }
}

template <typename Kind>
[[gnu::always_inline]] inline Status SubmitPipeline::Check(const Operation& operation,
                                                           const Kind& what,
                                                           const PeerConnection& connection,
                                                           Facts& facts) const {
  if (!operation.notification.empty() || std::is_same_v<Kind, NotifyOperation>) {
    XFER_RETURN_IF_ERROR(CheckNotifications(connection));
  }
  if constexpr (std::is_same_v<Kind, TransferOperation>) {
    XFER_RETURN_IF_ERROR(CheckOneSided(connection, what.entries.size()));
    const Access needed = NeededBy(what.op);
    for (size_t i = 0; i < what.entries.size(); ++i) {
      auto entry = CheckOneEntry(connection, what.entries[i], i, needed);
      if (!entry.ok()) return entry.status();
      facts.stages = facts.stages || entry->stages;
      facts.bytes += what.entries[i].length;
    }
  } else if constexpr (std::is_same_v<Kind, PreparedOperation>) {
    const transport::PreparedSelection& selection = what.selection;
    XFER_RETURN_IF_ERROR(CheckOneSided(connection, selection.size()));
    facts.stages = what.list->stages();
    // The bytes of the selection, only where they decide something.
    if (connection.capabilities().offload_from_bytes != 0) {
      const auto entries = what.list->entries();
      for (size_t i = 0; i < selection.size(); ++i) facts.bytes += entries[selection[i]].length;
    }
  } else if constexpr (kTwoSided<Kind>) {
    XFER_RETURN_IF_ERROR(CheckTwoSided(connection));
  }
  return Status::Ok();
}

Result<SubmitPipeline::CheckedEntry> SubmitPipeline::CheckEntry(const PeerConnection& connection,
                                                                const TransferEntry& entry,
                                                                size_t index, Access needed) const {
  return CheckOneEntry(connection, entry, index, needed);
}

[[gnu::always_inline]] inline Result<SubmitPipeline::CheckedEntry> SubmitPipeline::CheckOneEntry(
    const PeerConnection& connection, const TransferEntry& entry, size_t index,
    Access needed) const {
  if (entry.length == 0) return InvalidArgument(fmt::format("entry {} has zero length", index));
  auto local = CheckLocal(entry.local, entry.length, "local buffer");
  if (!local.ok()) return local.status().WithContext(fmt::format("entry {}", index));
  auto remote = connection.remote().Check(entry.remote, entry.length, needed);
  if (!remote.ok()) return remote.status().WithContext(fmt::format("entry {}", index));
  if (Status carried = CheckCarried(connection, *local, (*remote)->kind); !carried.ok()) {
    return carried.WithContext(fmt::format("entry {}", index));
  }
  return CheckedEntry{*remote, connection.Stages(*local)};
}

Status SubmitPipeline::CheckOneSided(const PeerConnection& connection, size_t entries) {
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

template <typename Kind>
[[gnu::always_inline]] inline Status SubmitPipeline::Route(const Operation& operation,
                                                           const Kind& what, const Facts& facts,
                                                           PeerConnection& connection,
                                                           uint32_t stream,
                                                           TransferRequest& request) const {
  transport::Endpoint& endpoint = connection.endpoint();
  if constexpr (std::is_same_v<Kind, SendOperation>) {
    return endpoint.PostSend(what.data, what.length, request, stream);
  } else if constexpr (std::is_same_v<Kind, RecvOperation>) {
    return endpoint.PostRecv(what.buffer, what.capacity, request);
  } else {
    // While staged requests are pending, a direct one queues behind them:
    // requests on one stream complete in posting order. A large request on
    // a transport that copies inside its posts is moved by the pipeline's
    // thread too (offloaded), so that the post returns at once.
    const bool offload = connection.Offloads(facts.bytes);
    if (!facts.stages && !offload && !connection.staging().busy()) {
      return PostDirect(operation, what, endpoint, stream, request);
    }
    Result<std::vector<StagedEntry>> staged = std::vector<StagedEntry>();
    OpCode op = OpCode::kWrite;  // a notification alone is queued as an empty write
    if constexpr (std::is_same_v<Kind, TransferOperation>) {
      op = what.op;
      staged = StagedEntries(connection, what.entries, offload);
    } else if constexpr (std::is_same_v<Kind, PreparedOperation>) {
      op = what.op;
      const GatheredEntries gathered(what.list->entries(), what.selection);
      staged = StagedEntries(connection, gathered.view(), offload);
    }
    if (!staged.ok()) return staged.status();
    return connection.staging().Submit(op, std::move(*staged), request, stream,
                                       operation.notification);
  }
}

template <typename Kind>
[[gnu::always_inline]] inline Status SubmitPipeline::PostDirect(const Operation& operation,
                                                                const Kind& what,
                                                                transport::Endpoint& endpoint,
                                                                uint32_t stream,
                                                                TransferRequest& request) const {
  if constexpr (std::is_same_v<Kind, TransferOperation>) {
    return PostEntries(endpoint, what.op, what.entries, request, stream, operation.notification);
  } else if constexpr (std::is_same_v<Kind, PreparedOperation>) {
    internal::PreparedList& list = *what.list;
    const transport::PreparedBatch* batch = list.batch();
    if (batch == nullptr) {
      const GatheredEntries gathered(list.entries(), what.selection);
      return PostEntries(endpoint, what.op, gathered.view(), request, stream,
                         operation.notification);
    }
    Status status = PostThenNotify(
        endpoint,
        [&] {
          return endpoint.PostPrepared(*batch, list.entries(), what.selection, what.op, request,
                                       stream);
        },
        request, stream, operation.notification);
    // The transport found a region the peer revoked: the list can never be
    // submitted whole again.
    if (status.code() == StatusCode::kOutOfRange) list.Invalidate(status);
    return status;
  } else {
    static_assert(std::is_same_v<Kind, NotifyOperation>);
    return endpoint.PostNotify(operation.notification, request, stream);
  }
}

Result<std::vector<StagedEntry>> SubmitPipeline::StagedEntries(
    const PeerConnection& connection, std::span<const TransferEntry> entries, bool offload) const {
  std::vector<StagedEntry> staged;
  staged.reserve(entries.size());
  for (const TransferEntry& e : entries) {
    // Checked a moment ago, unless the caller deregistered it meanwhile.
    auto kind = CheckLocal(e.local, e.length, "local buffer");
    if (!kind.ok()) return kind.status();
    int device = -1;
    if (*kind == MemoryKind::kCuda) {
      auto info = devices_.Classify(e.local, e.length);
      if (info.ok() && info->device) device = info->ordinal;
    }
    const bool bounce = connection.Stages(*kind);
    staged.push_back({e, bounce, device, offload && !bounce});
  }
  return staged;
}

Status SubmitPipeline::RecheckLocalRegions(internal::PreparedList& list) const {
  const uint64_t removals = memory_.removals();
  const auto entries = list.entries();
  const auto regions = list.local_regions();
  for (size_t i = 0; i < entries.size(); ++i) {
    if (memory_.RegionIdOf(AddressOfPointer(entries[i].local), entries[i].length) != regions[i]) {
      list.Invalidate(FailedPrecondition(
          fmt::format("entry {}'s local region {} was deregistered", i, regions[i])));
      return list.why_invalid();
    }
  }
  list.set_removals_seen(removals);
  return Status::Ok();
}

Result<MemoryKind> SubmitPipeline::CheckLocal(const void* address, size_t length,
                                              const char* what) const {
  auto kind = memory_.Locate(AddressOfPointer(address), length, Access::kNone);
  if (!kind.ok()) return kind.status().WithContext(what);
  return kind;
}

// Memory only travels on a transport that says it carries its kind, or,
// on this side, through the connection's staging.
Status SubmitPipeline::CheckCarried(const PeerConnection& connection, MemoryKind local,
                                    MemoryKind remote) const {
  const transport::Capabilities& caps = connection.capabilities();
  const bool local_moves = caps.Carries(local) || connection.Stages(local);
  if (local_moves && caps.Carries(remote)) return Status::Ok();
  const MemoryKind missing = local_moves ? remote : local;
  std::string why = fmt::format(
      "the {} transport does not carry {} memory in this build ({} memory on this side, {} "
      "memory on the peer's)",
      connection.info().transport,
      missing == MemoryKind::kCuda ? "CUDA device" : MemoryKindName(missing), MemoryKindName(local),
      MemoryKindName(remote));
  if (!local_moves) why += "; device path 'direct' forbids staging it";
  return NotSupported(why);
}

}  // namespace xfer::core
