// The send-side work requests of one QP, prepared once per size the way
// perftest's ctx_set_send_wqes does: a chain of post_list WRs with their
// SGEs, opcode, remote address and (UD) address handle, whose addresses
// then advance through the cycle buffer message by message.
#ifndef XFER_PERFTEST_WORK_REQUESTS_H_
#define XFER_PERFTEST_WORK_REQUESTS_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <vector>

#include "bench/model/bench_params.h"
#include "perftest/traffic_config.h"
#include "perftest/verbs_session.h"

namespace xfer::perftest {

class SendChain {
 public:
  // WRs for QP `qp` of `session` carrying `size`-byte messages of `verb`.
  SendChain(const VerbsSession& session, uint32_t qp, bench::Verb verb, uint64_t size,
            uint32_t post_list);
  // The WRs point into the vectors' heap storage, which a move keeps.
  SendChain(SendChain&&) = default;
  SendChain& operator=(SendChain&&) = default;
  SendChain(const SendChain&) = delete;
  SendChain& operator=(const SendChain&) = delete;

  // Marks which WRs of the next post are signalled: WR number k (counted
  // per QP from 0) is iff k % cq_mod == cq_mod - 1, or it is the last of
  // `last_wr` (perftest's rule: one completion per cq_mod WRs, and the
  // final WR always). `last_wr` = UINT64_MAX in duration mode.
  void Signal(uint64_t first_wr, uint32_t cq_mod, uint64_t last_wr);

  // Posts the chain. Errors: kInternal naming errno.
  Status Post(ibv_qp* qp);

  // Moves every WR to the next message slot: perftest advances local and
  // remote addresses by INC(size, cache_line) inside the cycle buffer when
  // size <= cycle_buffer / 2 and post_list == 1.
  void Advance();


 private:
  std::vector<ibv_send_wr> wrs_;
  std::vector<ibv_sge> sges_;
  uint64_t local_base_ = 0;
  uint64_t remote_base_ = 0;
  uint64_t stride_ = 0;
  uint64_t slots_ = 1;  // addresses cycle through this many slots
  uint64_t slot_ = 0;
  bool has_remote_ = false;
};

// Posts one receive per call into QP `qp`'s receive slot, sized for `size`
// (+ the 40-byte GRH on UD). wr_id = qp index.
class ReceivePoster {
 public:
  ReceivePoster(const VerbsSession& session, uint32_t qp, uint64_t size);
  Status Post(ibv_qp* qp, uint32_t count = 1);

 private:
  ibv_recv_wr wr_{};
  ibv_sge sge_{};
};

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_WORK_REQUESTS_H_
