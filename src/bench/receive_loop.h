// The receive side of send_bw, after perftest's run_iter_bw_server: keep
// rx_depth receives posted, re-post each as it completes, and time from the
// first completion to the last (the server never measures a peak).
#ifndef XFER_BENCH_RECEIVE_LOOP_H_
#define XFER_BENCH_RECEIVE_LOOP_H_

#include <chrono>
#include <cstdint>
#include <functional>

#include "bench/bench_session.h"
#include "bench/buffer_layout.h"
#include "bench/request_ring.h"
#include "bench/results.h"

namespace xfer::bench {

struct ReceiveConfig {
  uint64_t size = 0;
  uint64_t messages = 0;       // iterations x qps; ignored in duration mode
  uint32_t rx_depth = 512;
  double duration_s = 0;       // > 0: duration mode, window = D - 2*margin
  double margin_s = 0;
  std::chrono::milliseconds timeout{10000};
};

class ReceiveLoop {
 public:
  ReceiveLoop(Session& session, const BufferLayout& layout, const ReceiveConfig& config);
  // Cancels (by disconnecting) any receive still posted.
  ~ReceiveLoop();

  // Posts the first min(rx_depth, messages) receives. Call before telling
  // the sender to start.
  Status PrePost();

  // Reaps and re-posts until every message arrived (iteration mode) or
  // until `stop()` returns true (duration mode: the sender's Done).
  Result<BwResult> Run(const std::function<bool()>& stop);

 private:
  Status PostOne();
  void Cancel();

  Session& session_;
  const BufferLayout& layout_;
  const ReceiveConfig config_;
  RequestRing ring_;
  uint64_t posted_ = 0;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_RECEIVE_LOOP_H_
