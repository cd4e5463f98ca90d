// The receive side of send_bw, after perftest's run_iter_bw_server: keep
// rx_depth receives posted, re-post each as it completes (ReceiveRefill),
// and time from the first completion to the last, or in duration mode count
// the receives inside the sample window of this side's own DurationTimeline
// (the server never measures a peak).
#ifndef XFER_BENCH_RECEIVE_LOOP_H_
#define XFER_BENCH_RECEIVE_LOOP_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "bench/bench_session.h"
#include "bench/buffer_layout.h"
#include "bench/model/duration_timeline.h"
#include "bench/model/receive_refill.h"
#include "bench/request_ring.h"
#include "bench/model/results.h"

namespace xfer::bench {

struct ReceiveConfig {
  uint64_t size = 0;
  uint64_t messages = 0;       // iterations x qps; ignored in duration mode
  uint32_t rx_depth = 512;
  // Set: duration mode (-D). The timeline starts when Run() does, right
  // after the pre-run barrier, as the sender's does.
  std::optional<DurationWindow> duration;
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
  // until `stop()` returns true (duration mode: the sender's Done; the
  // receiver keeps re-posting past its own timeline's end, so the sender
  // never runs out of receives while it drains).
  Result<BwResult> Run(const std::function<bool()>& stop);

 private:
  Status PostOne();
  void Cancel();

  Session& session_;
  const BufferLayout& layout_;
  const ReceiveConfig config_;
  RequestRing ring_;
  ReceiveRefill refill_;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_RECEIVE_LOOP_H_
