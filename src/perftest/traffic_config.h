// What one measured size of a verbs test needs to know, shared by the
// bandwidth and latency loops.
#ifndef XFER_PERFTEST_TRAFFIC_CONFIG_H_
#define XFER_PERFTEST_TRAFFIC_CONFIG_H_

#include <chrono>
#include <cstdint>

#include "bench/bench_params.h"

namespace xfer::perftest {

// perftest's atomic tests move exactly one 8-byte word per operation.
inline constexpr uint64_t kAtomicSize = 8;

struct TrafficConfig {
  bench::Verb verb = bench::Verb::kWrite;
  uint64_t size = 0;
  uint64_t iterations = 0;  // per QP; unused in duration mode
  uint32_t tx_depth = 1;
  uint32_t cq_mod = 1;
  uint32_t post_list = 1;
  bool peak = false;        // stamp every post and completion
  // send_bw -b: the sender also takes the peer's messages on its pre-posted
  // receives, re-posting them, until both directions are done.
  bool receive_too = false;
  double duration_s = 0;    // > 0: duration mode
  double margin_s = 0;
  // The longest a loop waits for progress (a completion, a receive, the
  // peer's byte) before it declares the peer dead or the path broken.
  std::chrono::milliseconds timeout{10000};
};

// perftest's catch_alarm timeline, polled instead of signalled: warm up for
// margin, sample for duration - 2*margin, run one more margin, end.
class DurationPhases {
 public:
  enum class Phase { kWarmUp, kSample, kCoolDown, kEnd };
  DurationPhases(uint64_t start_ns, double duration_s, double margin_s)
      : sample_begin_(start_ns + Ns(margin_s)),
        sample_end_(start_ns + Ns(duration_s - margin_s)),
        end_(start_ns + Ns(duration_s)) {}
  Phase At(uint64_t now_ns) const {
    if (now_ns < sample_begin_) return Phase::kWarmUp;
    if (now_ns < sample_end_) return Phase::kSample;
    if (now_ns < end_) return Phase::kCoolDown;
    return Phase::kEnd;
  }
  // The sample window as scheduled: perftest's alarm stamps its edges, so
  // its length is D - 2*margin whether or not traffic flowed at the edges.
  uint64_t sample_ns() const { return sample_end_ - sample_begin_; }

 private:
  static uint64_t Ns(double seconds) { return static_cast<uint64_t>(seconds * 1e9); }
  uint64_t sample_begin_, sample_end_, end_;
};

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_TRAFFIC_CONFIG_H_
