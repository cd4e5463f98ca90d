// Duration mode (-D), the one timeline every loop runs on: perftest's
// catch_alarm state machine (../shared/reference/perftest.md §2.3, §2.4),
// driven by clock readings the loop already takes instead of SIGALRM.
//
//   start            start+margin              start+D-margin      start+D
//     | warm-up        | sample (D - 2*margin)   | cool-down          | end
//
// The reported window is the *scheduled* sample length, D - 2*margin, as
// perftest's alarm stamps it. It is not the span between the first and the
// last event counted in it: how the events happen to fall inside the
// window does not change its length, so a loop that is slow to start or
// stops short of the edge reports fewer events over the same window, which
// is what perftest prints. Only events recorded while the clock is in the
// sample phase are counted.
#ifndef XFER_BENCH_MODEL_DURATION_TIMELINE_H_
#define XFER_BENCH_MODEL_DURATION_TIMELINE_H_

#include <cstdint>

namespace xfer::bench {

// The lengths of a duration-mode run, as ResolveDurationWindow (statistics.h)
// derives them from -D and -f: margin_s before and after the sample, and
// the sample itself, sample_s = D - 2 * margin_s > 0.
struct DurationWindow {
  double margin_s = 0;
  double sample_s = 0;
};

// One side's -D clock, started at `start_ns` (xfer::NowNs(), when the loop
// starts, right after the pre-run barrier). Not thread-safe; one per loop.
class DurationTimeline {
 public:
  enum class Phase { kWarmUp, kSample, kCoolDown, kEnd };

  // REQUIRES: window.margin_s >= 0 and window.sample_s > 0.
  DurationTimeline(const DurationWindow& window, uint64_t start_ns);

  // The phase the run is in at `now_ns`: kWarmUp before start + margin,
  // kSample until start + margin + sample, kCoolDown for one more margin,
  // kEnd from start + D on.
  Phase At(uint64_t now_ns) const;

  // Records `events` (completions, receives, exchanges) that the loop saw
  // finish at `now_ns`. They count only when At(now_ns) is kSample.
  // Returns At(now_ns), so a loop can advance its phase with the same call.
  Phase Record(uint64_t now_ns, uint64_t events = 1);

  // The time the phase after At(now_ns) begins: the sample's start, its
  // end, or the run's end (kEnd's own "next" boundary is the run's end).
  // A loop that batches its readings narrows them near this instant, so
  // that events are attributed to the phase they finished in.
  uint64_t NextBoundaryNs(uint64_t now_ns) const;

  // Events recorded inside the sample phase (perftest's duration `iters`).
  uint64_t sample_count() const { return sample_count_; }
  // The window the results are computed over: the scheduled sample length
  // in nanoseconds, whatever the events recorded.
  uint64_t sample_ns() const { return sample_end_ns_ - sample_begin_ns_; }

 private:
  uint64_t sample_begin_ns_;
  uint64_t sample_end_ns_;
  uint64_t end_ns_;
  uint64_t sample_count_ = 0;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_MODEL_DURATION_TIMELINE_H_
