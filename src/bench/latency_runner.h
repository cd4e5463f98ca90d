// The ping-pong loops of the latency tests, after perftest's
// run_iter_lat_write, run_iter_lat_send and run_iter_lat (§2.4). Each loop
// stamps once per message it starts; statistics.h turns the stamps into the
// table row.
#ifndef XFER_BENCH_LATENCY_RUNNER_H_
#define XFER_BENCH_LATENCY_RUNNER_H_

#include <chrono>
#include <cstdint>
#include <vector>

#include "bench/bench_session.h"
#include "bench/buffer_layout.h"

namespace xfer::bench {

struct LatencyConfig {
  uint64_t size = 2;
  uint64_t iterations = 1000;
  bool is_server = false;
  std::chrono::milliseconds timeout{10000};
};

// Clears this side's receive slot; call before the barrier of each size so
// that the byte write_lat polls starts at 0.
void ResetReceiveSlot(Session& session, const BufferLayout& layout, uint64_t size);

// write_lat: each side WRITEs `size` bytes into the peer's receive slot, the
// last byte carrying the 8-bit sequence number, then spins on its own slot's
// last byte for the peer's answer. The server writes first. Returns one
// stamp per WRITE posted.
Result<std::vector<uint64_t>> RunWriteLatency(Session& session, const BufferLayout& layout,
                                              const LatencyConfig& config);

// read_lat (client only): READ `size` bytes, wait for the completion,
// repeat. Returns one stamp per READ, plus a final one.
Result<std::vector<uint64_t>> RunReadLatency(Session& session, const BufferLayout& layout,
                                             const LatencyConfig& config);

// send_lat: the client sends first; each side waits for a receive, re-posts
// it, and sends. `recv` must have been pre-posted with PrePostLatencyReceive
// before the barrier.
class SendLatency {
 public:
  SendLatency(Session& session, const BufferLayout& layout, const LatencyConfig& config)
      : session_(session), layout_(layout), config_(config) {}
  ~SendLatency();
  Status PrePost();
  Result<std::vector<uint64_t>> Run();

 private:
  Status PostReceive();
  Session& session_;
  const BufferLayout& layout_;
  const LatencyConfig config_;
  TransferRequest receive_;
  TransferRequest send_;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_LATENCY_RUNNER_H_
