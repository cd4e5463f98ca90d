// --timeline in the terminal and in --json: what each rail carried, interval
// by interval, the rails' state changes placed on the same clock, and the
// recovery they show.
#ifndef XFER_REPORT_RAIL_TIMELINE_REPORT_H_
#define XFER_REPORT_RAIL_TIMELINE_REPORT_H_

#include <optional>
#include <string>
#include <vector>

#include "bench/model/rail_timeline.h"
#include "nlohmann/json.hpp"

namespace xfer::report {

// A rail going down, read off the timeline.
struct RailRecovery {
  uint32_t rail = 0;
  double down_ms = 0;  // the engine's record of it, on the timeline's clock
  // The other rails' median rate (Gb/s) over the intervals that ended
  // before it, with every rail up.
  double survivors_before_gbps = 0;
  // The end of the first interval that began after it in which the others
  // carried at least 90% of that again; empty when none did by the run's
  // end. Its resolution is the interval.
  std::optional<double> recovered_ms;
  std::string reason;  // what took it down (the engine's record)
  // When it was up again (the engine's record), and the end of the first
  // interval after that in which it carried bytes; empty when it did not
  // by the run's end.
  std::optional<double> up_ms;
  std::optional<double> carrying_ms;
};

// One per time a rail went down during the timeline, in time order. (A
// later record of a rail already down, such as why it is not brought back,
// is not another loss.)
std::vector<RailRecovery> RailRecoveries(const bench::RailTimeline& timeline);

// The terminal's lines: a row per interval (t, then each rail's Gb/s, '*'
// where the rail was down at the interval's end), then each state change
// and the recovery it shows.
std::string RailTimelineLines(const bench::RailTimeline& timeline);

// {"interval_ms", "start", "rails": ["local->remote"...], "samples":
// [{"end_ms", "bytes": [...], "up": [...]}], "recoveries": [{"rail",
// "reason", "down_ms", "survivors_before_gbps", "recovered_ms", "up_ms",
// "carrying_ms"}]} (null where empty).
nlohmann::json RailTimelineJson(const bench::RailTimeline& timeline);

}  // namespace xfer::report

#endif  // XFER_REPORT_RAIL_TIMELINE_REPORT_H_
