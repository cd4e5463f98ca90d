#include "transport/verbs/verbs_endpoint.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <memory_resource>
#include <utility>

#include "common/request_access.h"
#include "transport/notification_length.h"
#include "verbs/mtu.h"

namespace xfer::transport::verbs {
namespace {

using internal::RequestAccess;

uint64_t AddressOf(const void* p) { return reinterpret_cast<uint64_t>(p); }

std::vector<ibv_qp*> RawQps(const EndpointResources& resources) {
  std::vector<ibv_qp*> qps;
  for (const auto& qp : resources.qps) qps.push_back(qp.get());
  return qps;
}

}  // namespace

Result<std::unique_ptr<VerbsEndpoint>> VerbsEndpoint::Create(
    std::unique_ptr<EndpointResources> resources, PeerSetup peer, const EndpointSetup& setup) {
  std::unique_ptr<VerbsEndpoint> endpoint(
      new VerbsEndpoint(std::move(resources), std::move(peer), setup));
  const EndpointResources& r = *endpoint->resources_;
  auto poller = CompletionPoller::Create(r.device.context(), r.cq.get(), r.channel.get(),
                                         setup.control != nullptr ? setup.control->fd() : -1,
                                         setup.io_timeout, *endpoint);
  if (!poller.ok()) return poller.status();
  endpoint->poller_ = std::move(poller.value());
  endpoint->poller_->Start();
  return endpoint;
}

VerbsEndpoint::VerbsEndpoint(std::unique_ptr<EndpointResources> resources, PeerSetup peer,
                             const EndpointSetup& setup)
    : resources_(std::move(resources)),
      peer_(std::move(peer)),
      rule_{static_cast<uint32_t>(resources_->qps.size()), resources_->min_stripe_bytes,
            resources_->max_wr_bytes},
      io_timeout_(setup.io_timeout) {
  for (uint32_t i = 0; i < resources_->qps.size(); ++i) {
    send_queues_.push_back(std::make_unique<SendQueue>(
        resources_->qps[i].get(), i, resources_->send_depth, resources_->send_backlog, state_,
        *resources_->outbox));
  }
  receive_ = std::make_unique<ReceivePath>(*resources_->slots, RawQps(*resources_), state_,
                                           *setup.notifications, io_timeout_,
                                           [this](const Status& s) { Fail(s); });
}

VerbsEndpoint::~VerbsEndpoint() { Close(); }

void VerbsEndpoint::Fail(const Status& reason) {
  if (!state_.Fail(reason)) return;
  // ERROR stops the NIC and flushes every posted WR (a completion each),
  // which the completion thread reaps before it finishes the requests.
  for (const auto& qp : resources_->qps) {
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_ERR;
    (void)ibv_modify_qp(qp.get(), &attr, IBV_QP_STATE);
  }
  if (poller_) poller_->Wake();
}

Status VerbsEndpoint::PostWrite(std::span<const TransferEntry> entries, TransferRequest& request,
                                uint32_t stream) {
  return PostOneSided(WrOp::kWrite, entries, request, stream);
}

Status VerbsEndpoint::PostRead(std::span<const TransferEntry> entries, TransferRequest& request,
                               uint32_t stream) {
  return PostOneSided(WrOp::kRead, entries, request, stream);
}

Status VerbsEndpoint::PostOneSided(WrOp op, std::span<const TransferEntry> entries,
                                   TransferRequest& request, uint32_t stream) {
  if (entries.empty()) return InvalidArgument("verbs: empty batch");
  if (state_.closed()) return state_.ClosedError();
  stream %= rule_.streams;
  const Access needed = op == WrOp::kWrite ? Access::kRemoteWrite : Access::kRemoteRead;
  PostScratch arena;
  std::pmr::monotonic_buffer_resource scratch(arena.data(), arena.size());
  // Every key first: an error leaves the request untouched. A WR reaches
  // into one MR on each side, so an entry running from one registered
  // piece of a region into the next, on either side, is keyed (and then
  // striped) as one stretch per piece.
  std::pmr::vector<uint64_t> lengths(&scratch);
  std::pmr::vector<WorkRequest> keyed(&scratch);
  lengths.reserve(entries.size());
  keyed.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const TransferEntry& e = entries[i];
    uint64_t done = 0;
    do {
      auto lkey = resources_->registrations->LocalKey(static_cast<const uint8_t*>(e.local) + done,
                                                      e.length - done);
      if (!lkey.ok()) return lkey.status().WithContext(fmt::format("entry {}", i));
      auto rkey = peer_.keys.Find(e.remote + done, e.length - done, needed);
      if (!rkey.ok()) return rkey.status().WithContext(fmt::format("entry {}", i));
      const uint64_t stretch = std::min(lkey->bytes, rkey->bytes);
      lengths.push_back(stretch);
      keyed.push_back({&request, op, AddressOf(e.local) + done, lkey->key, 0, e.remote + done,
                       rkey->key, 0, false});
      done += stretch;
    } while (done < e.length);
  }
  std::pmr::vector<Piece> pieces(&scratch);
  XFER_RETURN_IF_ERROR(StripeEntries(lengths, stream, rule_, pieces));
  StreamCounts per_stream{};
  for (const Piece& piece : pieces) ++per_stream[piece.stream];
  XFER_RETURN_IF_ERROR(ReserveAll(per_stream));
  RequestAccess::Start(request, static_cast<uint32_t>(pieces.size()));
  // One Enqueue per QP, each QP's pieces in entry order. Once the last WR
  // is queued the completion thread may finish `request` at any moment: it
  // is not touched after the loop.
  std::pmr::vector<WorkRequest> wrs(&scratch);
  wrs.reserve(*std::max_element(per_stream.begin(), per_stream.end()));
  for (uint32_t q = 0; q < rule_.streams; ++q) {
    if (per_stream[q] == 0) continue;
    wrs.clear();
    for (const Piece& piece : pieces) {
      if (piece.stream != q) continue;
      WorkRequest wr = keyed[piece.entry];
      wr.local += piece.offset;
      wr.remote += piece.offset;
      wr.length = static_cast<uint32_t>(piece.length);
      wrs.push_back(wr);
    }
    wrs.back().last_of_request = true;
    Status status = send_queues_[q]->Enqueue(wrs);
    if (!status.ok()) Fail(status);
  }
  return Status::Ok();
}

Status VerbsEndpoint::ReserveAll(const StreamCounts& per_stream) {
  for (uint32_t q = 0; q < rule_.streams; ++q) {
    if (per_stream[q] == 0) continue;
    Status reserved = send_queues_[q]->Reserve(per_stream[q]);
    if (reserved.ok()) continue;
    for (uint32_t k = 0; k < q; ++k) {
      if (per_stream[k] != 0) send_queues_[k]->Release(per_stream[k]);
    }
    return reserved;
  }
  return Status::Ok();
}

Status VerbsEndpoint::PostSend(const void* data, size_t length, TransferRequest& request,
                               uint32_t stream) {
  if (length == 0 || length > kMaxMessageBytes) {
    return InvalidArgument(
        fmt::format("verbs: a message holds 1 to {} bytes, not {}", kMaxMessageBytes, length));
  }
  if (state_.closed()) return state_.ClosedError();
  // Pieces of at most the peer's receive-buffer size, cut also where the
  // buffer runs from one registered piece of its region into the next (the
  // receiver appends pieces of any length).
  const uint64_t piece_bytes = peer_.recv_slot_bytes;
  PostScratch arena;
  std::pmr::monotonic_buffer_resource scratch(arena.data(), arena.size());
  std::pmr::vector<WorkRequest> wrs(&scratch);
  wrs.reserve(CountMessagePieces(length, piece_bytes));
  for (uint64_t offset = 0; offset < length;) {
    auto lkey = resources_->registrations->LocalKey(static_cast<const uint8_t*>(data) + offset,
                                                    length - offset);
    if (!lkey.ok()) return lkey.status().WithContext("send buffer");
    for (const uint64_t run_end = offset + lkey->bytes; offset < run_end;) {
      const uint64_t piece = std::min(piece_bytes, run_end - offset);
      wrs.push_back({&request, WrOp::kSend, AddressOf(data) + offset, lkey->key,
                     static_cast<uint32_t>(piece), 0, 0, static_cast<uint32_t>(length), false});
      offset += piece;
    }
  }
  wrs.back().last_of_request = true;
  const auto count = static_cast<uint32_t>(wrs.size());
  SendQueue& queue = *send_queues_[stream % rule_.streams];
  XFER_RETURN_IF_ERROR(queue.Reserve(count));
  RequestAccess::Start(request, count);
  Status status = queue.Enqueue(wrs);
  if (!status.ok()) Fail(status);
  return Status::Ok();
}

Status VerbsEndpoint::PostNotify(std::span<const uint8_t> message, TransferRequest& request,
                                 uint32_t stream) {
  XFER_RETURN_IF_ERROR(CheckNotificationLength(message.size()).WithContext("verbs"));
  if (state_.closed()) return state_.ClosedError();
  const uint32_t q = stream % rule_.streams;
  auto slot = resources_->outbox->Take(message);
  if (!slot.ok()) return slot.status();
  const uint64_t piece_bytes = peer_.recv_slot_bytes;
  const auto count = static_cast<uint32_t>(CountMessagePieces(message.size(), piece_bytes));
  if (Status reserved = send_queues_[q]->Reserve(count); !reserved.ok()) {
    resources_->outbox->Give(*slot);
    return reserved;
  }
  HeldNotification note;
  note.queue = q;
  note.wrs.reserve(count);
  const uint64_t base = resources_->outbox->Address(*slot);
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t offset = uint64_t{i} * piece_bytes;
    WorkRequest wr{&request, WrOp::kSend, base + offset, resources_->outbox->lkey(),
                   static_cast<uint32_t>(std::min<uint64_t>(piece_bytes, message.size() - offset)),
                   0, 0, static_cast<uint32_t>(message.size()) | kNotificationImm, i + 1 == count};
    wr.notification = true;
    if (i + 1 == count) wr.outbox_slot = *slot;
    note.wrs.push_back(wr);
  }
  // Striped pieces of earlier requests may ride the other QPs: wait for
  // what they have queued so far.
  for (uint32_t k = 0; k < rule_.streams; ++k) {
    if (k != q) note.after[k] = send_queues_[k]->QueuedThrough();
  }
  RequestAccess::Start(request, count);
  std::lock_guard lock(held_mu_);
  if (held_closed_) {
    FinishHeld(note, state_.ClosedError());
    return Status::Ok();
  }
  if (held_.empty() && Releasable(note)) {
    if (Status status = send_queues_[q]->Enqueue(note.wrs); !status.ok()) Fail(status);
    return Status::Ok();
  }
  held_.push_back(std::move(note));
  any_held_.store(true, std::memory_order_release);
  // A completion may have come between the check and the push.
  if (poller_) poller_->Wake();
  return Status::Ok();
}

bool VerbsEndpoint::Releasable(const HeldNotification& held) const {
  for (uint32_t k = 0; k < rule_.streams; ++k) {
    if (k != held.queue && send_queues_[k]->FinishedThrough() < held.after[k]) return false;
  }
  return true;
}

void VerbsEndpoint::ReleaseHeld() {
  std::lock_guard lock(held_mu_);
  while (!held_.empty() && Releasable(held_.front())) {
    const HeldNotification& front = held_.front();
    if (Status status = send_queues_[front.queue]->Enqueue(front.wrs); !status.ok()) Fail(status);
    held_.pop_front();
  }
  any_held_.store(!held_.empty(), std::memory_order_release);
}

void VerbsEndpoint::FinishHeld(const HeldNotification& held, const Status& reason) {
  for (const WorkRequest& wr : held.wrs) {
    resources_->outbox->Give(wr.outbox_slot);
    RequestAccess::FinishPart(*wr.request, reason, 0);
  }
}

DeviceRegistration VerbsEndpoint::registration() const { return resources_->registration; }

NicPort VerbsEndpoint::nic() const {
  return {resources_->device.name(), resources_->path.port,
          ::xfer::verbs::MtuBytes(resources_->path.mtu)};
}

Status VerbsEndpoint::PostRecv(void* buffer, size_t capacity, TransferRequest& request) {
  return receive_->Post(buffer, capacity, request);
}

Status VerbsEndpoint::Revoke(const LocalRegionView& region, Deadline /*deadline*/) {
  return resources_->registrations->Withdraw(region.id);
}

void VerbsEndpoint::Close() {
  std::lock_guard lock(close_mu_);
  if (joined_) return;
  Fail(ConnectionLost("verbs endpoint closed locally"));
  if (poller_) poller_->Join();
  joined_ = true;
}

void VerbsEndpoint::OnCompletion(const ibv_wc& wc) {
  // A flush on a live connection follows whatever broke the QP: an error
  // completion on another WR, or an async event. Take the event first.
  if (wc.status == IBV_WC_WR_FLUSH_ERR && !state_.closed()) poller_->HandleAsyncEvents();
  if (IsRecvWrId(wc.wr_id)) {
    const uint32_t q = RecvWrIdQp(wc.wr_id);
    if (wc.status != IBV_WC_SUCCESS) {
      // Flushes of the posted slots are how a failed QP ends; anything
      // else on a live connection kills it.
      if (!state_.closed()) Fail(CompletionError(wc.status, wc.vendor_err, WrOp::kRecv, q, 0));
      return;
    }
    receive_->OnArrival(q, RecvWrIdSlot(wc.wr_id), wc.byte_len,
                        (wc.wc_flags & IBV_WC_WITH_IMM) != 0, ntohl(wc.imm_data));
    return;
  }
  const auto q = static_cast<uint32_t>(wc.wr_id & ((uint64_t{1} << kSendWrIdShift) - 1));
  if (q >= send_queues_.size() || (wc.wr_id >> kSendWrIdShift) == 0) {
    Fail(Internal(fmt::format("verbs: completion for unknown WR id {:#x}", wc.wr_id)));
    return;
  }
  Status failed = send_queues_[q]->OnCompletion(wc.wr_id, wc.status, wc.vendor_err);
  if (!failed.ok()) Fail(failed);
  if (any_held_.load(std::memory_order_acquire) && !state_.closed()) ReleaseHeld();
}

void VerbsEndpoint::OnTick(uint64_t now_ns) {
  const auto limit = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(io_timeout_).count());
  for (size_t q = 0; q < send_queues_.size(); ++q) {
    const uint64_t since = send_queues_[q]->WaitingSinceNs();
    if (since != 0 && now_ns > since && now_ns - since > limit) {
      Fail(Timeout(fmt::format("verbs: no completion from the peer on stream {} for {} ms", q,
                               io_timeout_.count())));
      return;
    }
  }
  receive_->CheckTimeouts(now_ns);
}

void VerbsEndpoint::OnFatal(const Status& reason) { Fail(reason); }

bool VerbsEndpoint::Closed() const { return state_.closed(); }

bool VerbsEndpoint::Quiesced() const {
  return std::all_of(send_queues_.begin(), send_queues_.end(),
                     [](const auto& queue) { return queue->Idle(); });
}

void VerbsEndpoint::Stopped() {
  const Status reason = state_.ClosedError();
  {
    std::lock_guard lock(held_mu_);
    held_closed_ = true;
    for (const HeldNotification& held : held_) FinishHeld(held, reason);
    held_.clear();
    any_held_.store(false, std::memory_order_release);
  }
  for (auto& queue : send_queues_) queue->Drain(reason);
  receive_->FailAll(reason);
}

}  // namespace xfer::transport::verbs
