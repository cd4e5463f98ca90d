// What one measured size of a verbs test needs to know, shared by the
// bandwidth and latency loops.
#ifndef XFER_PERFTEST_TRAFFIC_CONFIG_H_
#define XFER_PERFTEST_TRAFFIC_CONFIG_H_

#include <chrono>
#include <cstdint>
#include <optional>

#include "bench/model/bench_params.h"
#include "bench/model/duration_timeline.h"

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
  // Set: duration mode (-D). Each loop runs a bench::DurationTimeline from
  // its start and reports over its scheduled sample window.
  std::optional<bench::DurationWindow> duration;
  // The longest a loop waits for progress (a completion, a receive, the
  // peer's byte) before it declares the peer dead or the path broken.
  std::chrono::milliseconds timeout{10000};
};

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_TRAFFIC_CONFIG_H_
