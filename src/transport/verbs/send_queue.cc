#include "transport/verbs/send_queue.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cstring>

#include "common/clock.h"
#include "common/request_access.h"

namespace xfer::transport::verbs {
namespace {

using internal::RequestAccess;

// WRs handed to one ibv_post_send call (one doorbell).
constexpr uint32_t kMaxChain = 32;

ibv_wr_opcode ToIbv(WrOp op) {
  switch (op) {
    case WrOp::kWrite: return IBV_WR_RDMA_WRITE;
    case WrOp::kRead: return IBV_WR_RDMA_READ;
    case WrOp::kSend:
    case WrOp::kRecv: break;
  }
  return IBV_WR_SEND_WITH_IMM;
}

}  // namespace

// The backlog's storage starts small: most connections never queue beyond
// their send depth.
constexpr size_t kInitialBacklog = 256;

SendQueue::SendQueue(ibv_qp* qp, uint32_t index, uint32_t depth, uint32_t backlog,
                     const ConnectionState& state, NotificationOutbox& outbox)
    : qp_(qp),
      index_(index),
      depth_(depth),
      signal_every_(std::clamp<uint32_t>(depth / 2, 1, 16)),
      state_(state),
      outbox_(outbox),
      backlog_(std::min<size_t>(kInitialBacklog, backlog), backlog),
      posted_(depth, depth) {}

Status SendQueue::Reserve(uint32_t count) {
  const uint64_t capacity = uint64_t{depth_} + backlog_.limit();
  if (count > capacity) {
    return InvalidArgument(fmt::format(
        "verbs: the request needs {} work requests on stream {}, more than its queue holds ({} "
        "posted + {} waiting); split the batch",
        count, index_, depth_, backlog_.limit()));
  }
  std::lock_guard lock(mu_);
  const uint64_t queued = posted_.size() + backlog_.size() + reserved_;
  if (queued + count > capacity) {
    return ResourceExhausted(fmt::format(
        "verbs: stream {} has {} work requests queued, no room for {} more; retry once some "
        "complete",
        index_, queued, count));
  }
  reserved_ += count;
  return Status::Ok();
}

void SendQueue::Release(uint32_t count) {
  std::lock_guard lock(mu_);
  reserved_ -= std::min<uint64_t>(count, reserved_);
}

void SendQueue::FinishLocked(const Posted& wr, const Status& status) {
  outbox_.Give(wr.outbox_slot);
  // A notification's pieces are not the request's bytes.
  RequestAccess::FinishPart(*wr.request, status,
                            status.ok() && !wr.notification ? wr.length : 0);
}

void SendQueue::FinishUnposted(const WorkRequest& wr, const Status& status) {
  outbox_.Give(wr.outbox_slot);
  RequestAccess::FinishPart(*wr.request, status, 0);
}

Status SendQueue::Enqueue(std::span<const WorkRequest> wrs) {
  std::lock_guard lock(mu_);
  assert(reserved_ >= wrs.size());
  reserved_ -= std::min<uint64_t>(wrs.size(), reserved_);
  // Checked under mu_: Drain takes it too, so a WR queued here is either
  // drained or seen by a live completion thread.
  if (drained_ || state_.closed()) {
    const Status closed = state_.ClosedError();
    for (const auto& wr : wrs) FinishUnposted(wr, closed);
    return Status::Ok();
  }
  // The reservation guarantees the room: posted_ + backlog_ + reserved_
  // never exceeds depth_ + the backlog's limit, so a full backlog means the
  // QP has room, and pumping makes backlog room.
  for (size_t i = 0; i < wrs.size(); ++i) {
    if (backlog_.room() == 0) {
      Status pumped = PumpLocked();
      if (!pumped.ok()) {
        // The caller fails the connection; Drain finishes what was queued,
        // and the WRs never queued are finished here.
        for (size_t k = i; k < wrs.size(); ++k) FinishUnposted(wrs[k], pumped);
        return pumped;
      }
      assert(backlog_.room() > 0);
    }
    backlog_.Push(wrs[i]);
  }
  return PumpLocked();
}

Status SendQueue::PumpLocked() {
  std::array<ibv_send_wr, kMaxChain> chain;
  std::array<ibv_sge, kMaxChain> sges;
  while (!backlog_.empty() && posted_.size() < depth_) {
    const auto room = static_cast<uint32_t>(depth_ - posted_.size());
    const auto count =
        static_cast<uint32_t>(std::min<size_t>({backlog_.size(), room, size_t{kMaxChain}}));
    for (uint32_t i = 0; i < count; ++i) {
      const WorkRequest& wr = backlog_[i];
      ibv_send_wr& out = chain[i];
      out = ibv_send_wr{};
      sges[i] = ibv_sge{wr.local, wr.length, wr.lkey};
      out.wr_id = ((next_sequence_ + i) << kSendWrIdShift) | index_;
      out.sg_list = &sges[i];
      out.num_sge = 1;
      out.opcode = ToIbv(wr.op);
      if (wr.op == WrOp::kSend) {
        out.imm_data = htonl(wr.imm);
      } else {
        out.wr.rdma.remote_addr = wr.remote;
        out.wr.rdma.rkey = wr.rkey;
      }
      ++unsignaled_run_;
      const bool fills_queue = posted_.size() + i + 1 == depth_;
      if (wr.last_of_request || unsignaled_run_ >= signal_every_ || fills_queue) {
        out.send_flags = IBV_SEND_SIGNALED;
        unsignaled_run_ = 0;
      }
      out.next = i + 1 < count ? &chain[i + 1] : nullptr;
    }
    ibv_send_wr* bad = nullptr;
    const int rc = ibv_post_send(qp_, chain.data(), &bad);
    const uint32_t accepted =
        rc == 0 ? count : static_cast<uint32_t>(bad == nullptr ? 0 : bad - chain.data());
    if (accepted > 0 && posted_.empty()) waiting_since_ns_ = NowNs();
    for (uint32_t i = 0; i < accepted; ++i) {
      const WorkRequest& wr = backlog_.front();
      posted_.Push(
          {next_sequence_++, wr.request, wr.op, wr.length, wr.notification, wr.outbox_slot});
      (void)backlog_.PopFront();
    }
    if (rc != 0) {
      return IoError(fmt::format("verbs: ibv_post_send on stream {}: {}", index_,
                                 std::strerror(rc)));
    }
  }
  return Status::Ok();
}

Status SendQueue::OnCompletion(uint64_t wr_id, ibv_wc_status status, uint32_t vendor_error) {
  const uint64_t sequence = wr_id >> kSendWrIdShift;
  std::lock_guard lock(mu_);
  Status fatal;
  while (!posted_.empty() && posted_.front().sequence <= sequence) {
    const Posted wr = posted_.PopFront();
    if (wr.sequence < sequence || status == IBV_WC_SUCCESS) {
      // Unsignalled WRs before this one completed, in order, without error.
      FinishLocked(wr, Status::Ok());
    } else if (state_.closed()) {
      FinishLocked(wr, state_.ClosedError());
    } else {
      fatal = CompletionError(status, vendor_error, wr.op, index_, wr.length);
      FinishLocked(wr, fatal);
    }
  }
  waiting_since_ns_ = posted_.empty() ? 0 : NowNs();
  if (!fatal.ok() || drained_ || state_.closed()) return fatal;
  return PumpLocked();
}

bool SendQueue::Idle() const {
  std::lock_guard lock(mu_);
  return posted_.empty();
}

uint64_t SendQueue::QueuedThrough() const {
  std::lock_guard lock(mu_);
  return next_sequence_ - 1 + backlog_.size();
}

uint64_t SendQueue::FinishedThrough() const {
  std::lock_guard lock(mu_);
  // The pump keeps the QP full before anything waits in the backlog, so
  // with nothing posted nothing is queued either.
  return posted_.empty() ? next_sequence_ - 1 : posted_.front().sequence - 1;
}

uint64_t SendQueue::WaitingSinceNs() const {
  std::lock_guard lock(mu_);
  return posted_.empty() ? 0 : waiting_since_ns_;
}

void SendQueue::Drain(const Status& reason) {
  std::lock_guard lock(mu_);
  drained_ = true;
  while (!posted_.empty()) FinishLocked(posted_.PopFront(), reason);
  while (!backlog_.empty()) FinishUnposted(backlog_.PopFront(), reason);
}

}  // namespace xfer::transport::verbs
