// When a receive queue gets a receive posted: the one policy behind every
// send test's receive side, over the engine (Engine::PostRecv) and over
// verbs (ibv_post_recv) alike. Callers keep the post call itself; this
// decides whether to make it.
//
// perftest's rule (run_iter_bw_server, run_iter_lat_send): in iteration mode
// a queue gets exactly as many receives as messages will arrive on it,
// pre-posted ones included, so none is left behind for the next size of -a
// (where a stale receive would take a larger message and fail). In duration
// mode the message count is not known, so every consumed receive is
// replaced until the loop stops.
#ifndef XFER_BENCH_MODEL_RECEIVE_REFILL_H_
#define XFER_BENCH_MODEL_RECEIVE_REFILL_H_

#include <cstdint>
#include <limits>

namespace xfer::bench {

class ReceiveRefill {
 public:
  // Duration mode: no limit on the receives posted.
  static constexpr uint64_t kUnbounded = std::numeric_limits<uint64_t>::max();

  // `needed`: the messages this queue will receive in the run (iterations
  // per QP), or kUnbounded. `already_posted`: receives posted before this
  // object took over (e.g. pre-posted before the barrier).
  explicit ReceiveRefill(uint64_t needed, uint64_t already_posted = 0)
      : needed_(needed), posted_(already_posted) {}

  // Whether the caller should post one receive now, pre-posting or
  // replacing one that completed. A true answer counts it as posted, so
  // call it once per receive and post exactly when it says so.
  bool TakeOne() {
    if (posted_ >= needed_) return false;
    ++posted_;
    return true;
  }

  // Receives posted so far, as counted by TakeOne and already_posted.
  uint64_t posted() const { return posted_; }

 private:
  uint64_t needed_;
  uint64_t posted_;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_MODEL_RECEIVE_REFILL_H_
