#include "report/rail_timeline_report.h"

#include <algorithm>
#include <chrono>
#include <cstddef>

#include <fmt/format.h>

#include "bench/utc_time.h"

namespace xfer::report {
namespace {

using bench::RailTimeline;

// The length of sample `i`'s interval in seconds: the last one may be cut
// short where the run ended.
double Seconds(const RailTimeline& timeline, size_t i) {
  const uint64_t begin = i == 0 ? 0 : timeline.samples[i - 1].end_ms;
  return static_cast<double>(timeline.samples[i].end_ms - begin) / 1e3;
}

double Gbps(uint64_t bytes, double seconds) {
  return seconds <= 0 ? 0 : static_cast<double>(bytes) * 8 / seconds / 1e9;
}

// The Gb/s of every rail but `except` in sample `i`.
double OthersGbps(const RailTimeline& timeline, size_t i, uint32_t except) {
  uint64_t bytes = 0;
  const RailTimeline::Sample& sample = timeline.samples[i];
  for (size_t r = 0; r < sample.bytes.size(); ++r) {
    if (r != except) bytes += sample.bytes[r];
  }
  return Gbps(bytes, Seconds(timeline, i));
}

bool AllUp(const RailTimeline::Sample& sample) {
  return std::all_of(sample.up.begin(), sample.up.end(), [](bool up) { return up; });
}

// `rail` up again at `up_ms`: when, and the end of the first interval after
// it in which it carried bytes.
void ReadReturn(const RailTimeline& timeline, uint32_t rail, double up_ms,
                RailRecovery& recovery) {
  recovery.up_ms = up_ms;
  for (const RailTimeline::Sample& sample : timeline.samples) {
    if (static_cast<double>(sample.end_ms) <= up_ms || rail >= sample.bytes.size() ||
        sample.bytes[rail] == 0) {
      continue;
    }
    recovery.carrying_ms = static_cast<double>(sample.end_ms);
    return;
  }
}

nlohmann::json MsOrNull(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

}  // namespace

std::vector<RailRecovery> RailRecoveries(const RailTimeline& timeline) {
  std::vector<RailRecovery> out;
  for (uint32_t rail = 0; rail < timeline.rails.size(); ++rail) {
    bool up = true;
    std::optional<size_t> last;  // this rail's latest loss in `out`
    for (const RailEvent& event : timeline.rails[rail].events) {
      if (event.up) {
        if (!up && last) ReadReturn(timeline, rail, timeline.OffsetMs(event.at), out[*last]);
        up = true;
        continue;
      }
      if (!up) continue;  // a remark on a rail already down
      up = false;
      RailRecovery recovery;
      recovery.rail = rail;
      recovery.reason = event.reason;
      recovery.down_ms = timeline.OffsetMs(event.at);
      std::vector<double> before;
      for (size_t i = 0; i < timeline.samples.size(); ++i) {
        const RailTimeline::Sample& sample = timeline.samples[i];
        if (static_cast<double>(sample.end_ms) > recovery.down_ms) break;
        if (AllUp(sample)) before.push_back(OthersGbps(timeline, i, rail));
      }
      if (!before.empty()) {
        const auto middle = before.begin() + static_cast<std::ptrdiff_t>(before.size() / 2);
        std::nth_element(before.begin(), middle, before.end());
        recovery.survivors_before_gbps = *middle;
      }
      for (size_t i = 0; i < timeline.samples.size(); ++i) {
        // Intervals that began before the loss are mostly from before it.
        const uint64_t begin = i == 0 ? 0 : timeline.samples[i - 1].end_ms;
        if (static_cast<double>(begin) < recovery.down_ms) continue;
        if (OthersGbps(timeline, i, rail) >= 0.9 * recovery.survivors_before_gbps) {
          recovery.recovered_ms = static_cast<double>(timeline.samples[i].end_ms);
          break;
        }
      }
      last = out.size();
      out.push_back(recovery);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const RailRecovery& a, const RailRecovery& b) { return a.down_ms < b.down_ms; });
  return out;
}

std::string RailTimelineLines(const RailTimeline& timeline) {
  std::string out = fmt::format(" timeline: Gb/s per rail every {} ms, from {}\n",
                                timeline.interval.count(), bench::UtcTime(timeline.start, 3));
  out += "   t[s]";
  for (size_t r = 0; r < timeline.rails.size(); ++r) {
    out += fmt::format(" {:>9}", fmt::format("rail {}", r));
  }
  out += "\n";
  bool any_down = false;
  for (size_t i = 0; i < timeline.samples.size(); ++i) {
    const RailTimeline::Sample& sample = timeline.samples[i];
    out += fmt::format(" {:6.2f}", static_cast<double>(sample.end_ms) / 1e3);
    for (size_t r = 0; r < sample.bytes.size(); ++r) {
      const bool down = r < sample.up.size() && !sample.up[r];
      any_down = any_down || down;
      out += fmt::format(" {:8.2f}{}", Gbps(sample.bytes[r], Seconds(timeline, i)),
                         down ? '*' : ' ');
    }
    out += "\n";
  }
  if (any_down) out += " * the rail was down at the interval's end\n";
  for (const RailRecovery& recovery : RailRecoveries(timeline)) {
    const RailInfo& rail = timeline.rails[recovery.rail];
    out += fmt::format(" rail {} ({}->{}) down at {:.3f} s: {}\n", recovery.rail, rail.local,
                       rail.remote, recovery.down_ms / 1e3, recovery.reason);
    if (recovery.recovered_ms) {
      out += fmt::format(
          " the other rails carried 90% of their {:.2f} Gb/s before again by {:.3f} s ({:.0f} ms "
          "after)\n",
          recovery.survivors_before_gbps, *recovery.recovered_ms / 1e3,
          *recovery.recovered_ms - recovery.down_ms);
    } else {
      out += fmt::format(
          " the other rails did not carry 90% of their {:.2f} Gb/s before again by the run's "
          "end\n",
          recovery.survivors_before_gbps);
    }
    if (recovery.up_ms) {
      out += fmt::format(" rail {} up again at {:.3f} s ({:.0f} ms after); ", recovery.rail,
                         *recovery.up_ms / 1e3, *recovery.up_ms - recovery.down_ms);
      out += recovery.carrying_ms
                 ? fmt::format("carried bytes again by {:.3f} s\n", *recovery.carrying_ms / 1e3)
                 : std::string("carried nothing more by the run's end\n");
    }
  }
  return out;
}

nlohmann::json RailTimelineJson(const RailTimeline& timeline) {
  nlohmann::json rails = nlohmann::json::array();
  for (const RailInfo& rail : timeline.rails) rails.push_back(rail.local + "->" + rail.remote);
  nlohmann::json samples = nlohmann::json::array();
  for (const RailTimeline::Sample& sample : timeline.samples) {
    samples.push_back({{"end_ms", sample.end_ms}, {"bytes", sample.bytes}, {"up", sample.up}});
  }
  nlohmann::json recoveries = nlohmann::json::array();
  for (const RailRecovery& recovery : RailRecoveries(timeline)) {
    recoveries.push_back(
        {{"rail", recovery.rail},
         {"reason", recovery.reason},
         {"down_ms", recovery.down_ms},
         {"survivors_before_gbps", recovery.survivors_before_gbps},
         {"recovered_ms", MsOrNull(recovery.recovered_ms)},
         {"up_ms", MsOrNull(recovery.up_ms)},
         {"carrying_ms", MsOrNull(recovery.carrying_ms)}});
  }
  return {{"interval_ms", timeline.interval.count()},
          {"start", bench::UtcTime(timeline.start, 3)},
          {"rails", rails},
          {"samples", samples},
          {"recoveries", recoveries}};
}

}  // namespace xfer::report
