// How a benchmark run reports progress: the runners call a BenchObserver,
// the CLI implements it with the table and JSON writers. Keeps bench free
// of any output format.
#ifndef XFER_BENCH_OBSERVER_H_
#define XFER_BENCH_OBSERVER_H_

#include <string>

#include "bench/bench_params.h"
#include "bench/results.h"

namespace xfer::bench {

// What the run settled on once the peers are connected: the header of the
// table.
struct RunInfo {
  std::string transport;  // the transport actually carrying the run
  uint32_t qps = 1;
  uint32_t tx_depth = 0;
  uint32_t cq_mod = 0;
  uint32_t post_list = 1;
  uint32_t rx_depth = 0;
  bool peak_disabled = false;
  bool results_from_peer = false;  // this side prints numbers the peer measured
};

// Called from the thread that runs the benchmark, in this order:
// OnNotice* → OnStart → (OnBandwidth | OnLatency | OnLatencyDuration)* per size.
class BenchObserver {
 public:
  virtual ~BenchObserver() = default;
  // A warning or note perftest would print, one line without newline.
  virtual void OnNotice(const std::string& line) = 0;
  virtual void OnWaitingForClient() = 0;
  virtual void OnStart(const RunInfo& info) = 0;
  virtual void OnBandwidth(const BwResult& result) = 0;
  virtual void OnLatency(const LatResult& result) = 0;
  virtual void OnLatencyDuration(const LatDurationResult& result) = 0;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_OBSERVER_H_
