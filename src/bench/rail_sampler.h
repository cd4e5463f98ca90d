// Samples what each rail of a connection has carried (PeerInfo::rails'
// bytes, through the public API) every interval on a thread of its own,
// from Start until Stop, into a RailTimeline (bench/model/rail_timeline.h).
// The samples are taken on a fixed grid (start + k * interval), so a late
// wake-up makes one interval's bytes late, never the grid drift.
#ifndef XFER_BENCH_RAIL_SAMPLER_H_
#define XFER_BENCH_RAIL_SAMPLER_H_

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "bench/model/rail_timeline.h"
#include "xfer/engine.h"
#include "xfer/status.h"

namespace xfer::bench {

class RailSampler {
 public:
  // `engine` outlives the sampler; `peer` is connected over several rails.
  RailSampler(Engine& engine, PeerId peer, std::chrono::milliseconds interval);
  ~RailSampler();  // Stop()
  RailSampler(const RailSampler&) = delete;
  RailSampler& operator=(const RailSampler&) = delete;

  // Takes t = 0 and starts the thread. Errors: kResourceExhausted (no
  // thread), what GetPeerInfo says of the peer.
  Status Start();
  // Takes a last sample (the interval cut short where the run ended, when
  // it is at least half an interval), joins the thread and returns the timeline, with the rails' final state.
  RailTimeline Stop();

  // Milliseconds since Start, on the timeline's clock (to place what ran
  // when on it). REQUIRES: started.
  double ElapsedMs() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
        .count();
  }

 private:
  void Run();
  // Appends the sample at `end_ms`: the bytes since the previous one.
  void Sample(uint64_t end_ms);

  Engine& engine_;
  const PeerId peer_;
  const std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point start_{};
  std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;                  // GUARDED_BY(mu_)
  RailTimeline timeline_;                  // GUARDED_BY(mu_) once started
  std::vector<uint64_t> last_bytes_;       // GUARDED_BY(mu_): cumulative
  std::thread thread_;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_RAIL_SAMPLER_H_
