#include "transport/verbs/send_queue.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
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

SendQueue::SendQueue(ibv_qp* qp, uint32_t index, uint32_t depth, const ConnectionState& state)
    : qp_(qp),
      index_(index),
      depth_(depth),
      signal_every_(std::clamp<uint32_t>(depth / 2, 1, 16)),
      state_(state) {}

void SendQueue::FinishLocked(const Posted& wr, const Status& status) {
  RequestAccess::FinishPart(*wr.request, status, status.ok() ? wr.length : 0);
}

Status SendQueue::Enqueue(std::span<const WorkRequest> wrs) {
  std::lock_guard lock(mu_);
  // Checked under mu_: Drain takes it too, so a WR queued here is either
  // drained or seen by a live completion thread.
  if (drained_ || state_.closed()) {
    const Status closed = state_.ClosedError();
    for (const auto& wr : wrs) RequestAccess::FinishPart(*wr.request, closed, 0);
    return Status::Ok();
  }
  backlog_.insert(backlog_.end(), wrs.begin(), wrs.end());
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
      posted_.Push({next_sequence_++, wr.request, wr.op, wr.length});
      backlog_.pop_front();
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

uint64_t SendQueue::WaitingSinceNs() const {
  std::lock_guard lock(mu_);
  return posted_.empty() ? 0 : waiting_since_ns_;
}

void SendQueue::Drain(const Status& reason) {
  std::lock_guard lock(mu_);
  drained_ = true;
  while (!posted_.empty()) FinishLocked(posted_.PopFront(), reason);
  for (const auto& wr : backlog_) RequestAccess::FinishPart(*wr.request, reason, 0);
  backlog_.clear();
}

}  // namespace xfer::transport::verbs
