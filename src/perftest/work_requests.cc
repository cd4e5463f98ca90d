#include "perftest/work_requests.h"

#include <fmt/format.h>

#include <cstring>

namespace xfer::perftest {
namespace {

using bench::Verb;


ibv_wr_opcode OpcodeFor(Verb verb, bench::AtomicType atomic) {
  switch (verb) {
    case Verb::kWrite: return IBV_WR_RDMA_WRITE;
    case Verb::kRead: return IBV_WR_RDMA_READ;
    case Verb::kSend: return IBV_WR_SEND;
    case Verb::kAtomic:
      return atomic == bench::AtomicType::kCompareAndSwap ? IBV_WR_ATOMIC_CMP_AND_SWP
                                                          : IBV_WR_ATOMIC_FETCH_AND_ADD;
  }
  return IBV_WR_SEND;
}

}  // namespace

SendChain::SendChain(const VerbsSession& session, uint32_t qp, Verb verb, uint64_t size,
                     uint32_t post_list)
    : wrs_(post_list), sges_(post_list) {
  const AgreedSettings& agreed = session.agreed();
  const uint64_t bytes = verb == Verb::kAtomic ? kAtomicSize : size;
  // Atomics step by a cache line (perftest's 64 B) so each hits its own word.
  stride_ = verb == Verb::kAtomic ? agreed.cache_line : AddressStride(bytes, agreed.cache_line);
  if (post_list == 1 && bytes <= agreed.cycle_buffer / 2) {
    slots_ = std::max<uint64_t>(agreed.cycle_buffer / stride_, 1);
  }
  local_base_ = reinterpret_cast<uintptr_t>(session.buffer().SendSlot(qp));
  const bench::QpAddress& remote = session.remote(qp);
  remote_base_ = remote.vaddr;
  has_remote_ = verb != Verb::kSend;
  const bool inline_data = (verb == Verb::kWrite || verb == Verb::kSend) &&
                           bytes <= session.max_inline() && session.max_inline() > 0;
  for (size_t j = 0; j < wrs_.size(); ++j) {
    ibv_sge& sge = sges_[j];
    // A post list spreads its WRs over consecutive slots of the cycle.
    const uint64_t offset = (j * stride_) % std::max<uint64_t>(session.buffer().slot_size(), 1);
    sge.addr = local_base_ + (offset + bytes <= session.buffer().slot_size() ? offset : 0);
    sge.length = static_cast<uint32_t>(bytes);
    sge.lkey = session.lkey();
    ibv_send_wr& wr = wrs_[j];
    wr = ibv_send_wr{};
    wr.wr_id = qp;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = OpcodeFor(verb, session.params().verbs.atomic_type);
    wr.next = j + 1 < wrs_.size() ? &wrs_[j + 1] : nullptr;
    if (inline_data) wr.send_flags |= IBV_SEND_INLINE;
    if (verb == Verb::kAtomic) {
      wr.wr.atomic.remote_addr = remote_base_;
      wr.wr.atomic.rkey = remote.rkey;
      wr.wr.atomic.compare_add =
          session.params().verbs.atomic_type == bench::AtomicType::kFetchAndAdd ? 1 : 0;
      wr.wr.atomic.swap = 0;
    } else if (has_remote_) {
      wr.wr.rdma.remote_addr = remote_base_ + (sge.addr - local_base_);
      wr.wr.rdma.rkey = remote.rkey;
    }
    if (session.qp_type() == verbs::QpType::kUD) {
      wr.wr.ud.ah = session.address_handle(qp);
      wr.wr.ud.remote_qpn = remote.qpn;
      wr.wr.ud.remote_qkey = verbs::kUdQkey;
    }
  }
}

void SendChain::Signal(uint64_t first_wr, uint32_t cq_mod, uint64_t last_wr) {
  for (size_t j = 0; j < wrs_.size(); ++j) {
    const uint64_t k = first_wr + j;
    const bool signalled = k % cq_mod == cq_mod - 1 || k == last_wr;
    if (signalled) {
      wrs_[j].send_flags |= IBV_SEND_SIGNALED;
    } else {
      wrs_[j].send_flags &= ~static_cast<unsigned>(IBV_SEND_SIGNALED);
    }
  }
}

Status SendChain::Post(ibv_qp* qp) {
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(qp, wrs_.data(), &bad); rc != 0) {
    return Internal(fmt::format("ibv_post_send: {}", std::strerror(rc)));
  }
  return Status::Ok();
}

void SendChain::Advance() {
  if (slots_ <= 1) return;
  slot_ = slot_ + 1 == slots_ ? 0 : slot_ + 1;
  const uint64_t offset = slot_ * stride_;
  sges_[0].addr = local_base_ + offset;
  if (wrs_[0].opcode == IBV_WR_ATOMIC_FETCH_AND_ADD || wrs_[0].opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
    wrs_[0].wr.atomic.remote_addr = remote_base_ + offset;
  } else if (has_remote_) {
    wrs_[0].wr.rdma.remote_addr = remote_base_ + offset;
  }
}

ReceivePoster::ReceivePoster(const VerbsSession& session, uint32_t qp, uint64_t size) {
  const bool ud = session.qp_type() == verbs::QpType::kUD;
  sge_.addr = reinterpret_cast<uintptr_t>(session.buffer().ReceiveSlot(qp));
  sge_.length = static_cast<uint32_t>(size + (ud ? kGrhBytes : 0));
  sge_.lkey = session.lkey();
  wr_.wr_id = qp;
  wr_.sg_list = &sge_;
  wr_.num_sge = 1;
}

Status ReceivePoster::Post(ibv_qp* qp, uint32_t count) {
  wr_.sg_list = &sge_;  // re-pointed here: the poster may have been moved
  for (uint32_t i = 0; i < count; ++i) {
    ibv_recv_wr* bad = nullptr;
    if (int rc = ibv_post_recv(qp, &wr_, &bad); rc != 0) {
      return Internal(fmt::format("ibv_post_recv: {}", std::strerror(rc)));
    }
  }
  return Status::Ok();
}

}  // namespace xfer::perftest
