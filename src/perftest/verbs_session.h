// One side of a perftest-compatible verbs test: the device, the
// out-of-band link to the peer and what the two agreed on in perftest's
// prologue (version, cycle buffer, cache line, MTU, negotiated flags), the
// test buffer and its registration, the CQs and QPs, and both sides' key
// messages. The per-test exchange sequences (verbs_benchmark.cc) drive it.
#ifndef XFER_PERFTEST_VERBS_SESSION_H_
#define XFER_PERFTEST_VERBS_SESSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "bench/model/bench_params.h"
#include "bench/model/observer.h"
#include "bench/model/statistics.h"
#include "perftest/oob_link.h"
#include "perftest/slot_buffer.h"
#include "verbs/device_context.h"
#include "verbs/ib_handles.h"
#include "verbs/queue_pair.h"
#include "xfer/status.h"

namespace xfer::perftest {

// A UD receive buffer holds the 40-byte Global Routing Header before the
// payload: perftest sizes its buffers and receives size + 40.
inline constexpr uint64_t kGrhBytes = 40;

// What the prologue settled.
struct AgreedSettings {
  std::string peer_version;
  double peer_version_number = 0;
  uint32_t cycle_buffer = 4096;  // max of both sides' page size
  uint32_t cache_line = 64;      // max of both sides' cache line
  ibv_mtu mtu = IBV_MTU_1024;    // min of both sides' (or -m)
  uint64_t max_size = 0;         // the largest message: StockMaxMessageSize
  uint32_t out_reads = 1;        // what we offer as READ/ATOMIC responder
  bool negotiated = false;       // P5 ran (both sides >= 6.28)
};

class VerbsSession {
 public:
  // Opens the device and port of params.verbs and runs the prologue
  // (P1-P5) over `link`. The CLI has refused the flags no path implements.
  // Errors: the device's (no device, unknown, port down), kNotSupported for
  // a peer older than perftest 5.70, the link's, kProtocolError for a peer that does
  // not speak perftest, kInvalidArgument for a negotiated mismatch.
  static Result<std::unique_ptr<VerbsSession>> Open(const bench::BenchParams& params,
                                                    const bench::EffectiveSettings& settings,
                                                    OobLink link);

  // Allocates and registers the buffer, creates CQs and QPs, fills the
  // local key messages. `max_size` is the largest message of the run.
  Status CreateResources(uint64_t max_size);

  // The first N exchanges: our key messages out, the peer's in (§1.6).
  Status ExchangeKeys();
  // A later exchange of QP 0's key message: perftest's barrier.
  Status Barrier(std::string_view what);
  // The same, where the peer may run its whole measurement first.
  Status BarrierAfterPeerRun(std::string_view what);
  // N more exchanges re-sending each QP's message ("print remote").
  Status BarrierEachQp();
  // ctx_close_connection: one exchange; the socket closes with the session.
  Status Close();

  // Moves every QP to RTR, and to RTS when `to_rts`; creates UD address
  // handles. Checks GID compatibility first, as perftest does.
  Status ConnectQueuePairs(bool to_rts);

  // R: sends ours and receives the peer's bandwidth row (5 exchanges), in
  // the printed units as perftest does. `after_peer_run` for the server of
  // a unidirectional test, which waits through the client's traffic.
  Result<bench::BwResult> ExchangeBwReport(const bench::BwResult& local, bool after_peer_run);

  // The header block of the report.
  bench::VerbsRunInfo RunInfo() const;

  const bench::BenchParams& params() const { return params_; }
  const AgreedSettings& agreed() const { return agreed_; }
  bool is_client() const { return link_.is_client(); }
  uint32_t qps() const { return params_.qps; }
  verbs::QpType qp_type() const;
  ibv_qp* qp(uint32_t i) const { return qps_[i].get(); }
  ibv_ah* address_handle(uint32_t i) const { return ahs_.empty() ? nullptr : ahs_[i].get(); }
  ibv_cq* send_cq() const { return send_cq_.get(); }
  ibv_cq* recv_cq() const { return recv_cq_.get(); }
  const TestBuffer& buffer() const { return *buffer_; }
  uint32_t lkey() const { return mr_->lkey; }
  uint32_t max_inline() const { return max_inline_; }
  const bench::QpAddress& local(uint32_t i) const { return local_[i]; }
  const bench::QpAddress& remote(uint32_t i) const { return remote_[i]; }
  uint32_t tx_depth() const { return settings_.tx_depth; }
  uint32_t rx_depth() const { return settings_.rx_depth; }
  uint32_t cq_mod() const { return settings_.cq_mod; }

 private:
  VerbsSession(const bench::BenchParams& params, const bench::EffectiveSettings& settings,
               verbs::DeviceContext device, OobLink link);
  Status RunPrologue();
  Status ExchangeSystemData();
  Status ExchangeMtu();
  Status Negotiate();
  Status ChooseGid();
  size_t KeyMessageSize() const;
  // The test buffer: host memory, or with --use_cuda device memory.
  Result<TestBuffer> AllocateBuffer(uint64_t slot_size);
  // Registers buffer_ with the NIC, as stock perftest does: host memory
  // with ibv_reg_mr; device memory through dma-buf (--use_cuda_dmabuf) or
  // ibv_reg_mr on the device pointer, which only nvidia-peermem makes work.
  Status RegisterBuffer(int access);
  Result<bench::QpAddress> ExchangeKey(const bench::QpAddress& mine, bool after_peer_run,
                                       std::string_view what);

  bench::BenchParams params_;
  bench::EffectiveSettings settings_;
  verbs::DeviceContext device_;
  OobLink link_;
  AgreedSettings agreed_;
  int gid_index_ = -1;
  std::optional<std::array<uint8_t, 16>> gid_;
  uint32_t max_inline_ = 0;

  // Declared in creation order: destroyed QPs first, device last.
  std::unique_ptr<cuda::DeviceRuntime> devices_;  // --use_cuda only
  std::optional<TestBuffer> buffer_;
  verbs::MemoryRegionHandle mr_;
  verbs::CompletionQueueHandle send_cq_;
  verbs::CompletionQueueHandle recv_cq_;
  std::vector<verbs::QueuePairHandle> qps_;
  std::vector<verbs::AddressHandle> ahs_;
  std::vector<bench::QpAddress> local_;
  std::vector<bench::QpAddress> remote_;
};

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_VERBS_SESSION_H_
