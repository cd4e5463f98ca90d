// What each rail of a connection carried, interval by interval, over a run
// (--timeline): the record that shows a user who pulls a cable the drop
// and the recovery, next to the engine's own record of the rails' state
// changes (RailInfo::events).
#ifndef XFER_BENCH_MODEL_RAIL_TIMELINE_H_
#define XFER_BENCH_MODEL_RAIL_TIMELINE_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "xfer/engine.h"

namespace xfer::bench {

struct RailTimeline {
  std::chrono::milliseconds interval{0};
  // The wall clock at t = 0, to place RailInfo::events on the timeline.
  std::chrono::system_clock::time_point start{};
  // One sample per interval: the bytes each rail completed in
  // (end_ms - interval, end_ms], and whether it was up at end_ms. The last
  // interval may be shorter (the run ended inside it): its end says so.
  struct Sample {
    uint64_t end_ms = 0;
    std::vector<uint64_t> bytes;
    std::vector<bool> up;
  };
  std::vector<Sample> samples;
  // The rails at the end: their ends, state and events.
  std::vector<RailInfo> rails;

  // Milliseconds from t = 0 to `at`; negative before it.
  double OffsetMs(std::chrono::system_clock::time_point at) const {
    return std::chrono::duration<double, std::milli>(at - start).count();
  }
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_MODEL_RAIL_TIMELINE_H_
