#include "bench/model/duration_timeline.h"

namespace xfer::bench {
namespace {

uint64_t SecondsToNs(double seconds) { return static_cast<uint64_t>(seconds * 1e9); }

}  // namespace

// Each phase length is converted once, so sample_ns() is exactly the
// scheduled sample length and does not depend on start_ns.
DurationTimeline::DurationTimeline(const DurationWindow& window, uint64_t start_ns)
    : sample_begin_ns_(start_ns + SecondsToNs(window.margin_s)),
      sample_end_ns_(sample_begin_ns_ + SecondsToNs(window.sample_s)),
      end_ns_(sample_end_ns_ + SecondsToNs(window.margin_s)) {}

DurationTimeline::Phase DurationTimeline::At(uint64_t now_ns) const {
  if (now_ns < sample_begin_ns_) return Phase::kWarmUp;
  if (now_ns < sample_end_ns_) return Phase::kSample;
  if (now_ns < end_ns_) return Phase::kCoolDown;
  return Phase::kEnd;
}

DurationTimeline::Phase DurationTimeline::Record(uint64_t now_ns, uint64_t events) {
  const Phase phase = At(now_ns);
  if (phase == Phase::kSample) sample_count_ += events;
  return phase;
}

uint64_t DurationTimeline::NextBoundaryNs(uint64_t now_ns) const {
  if (now_ns < sample_begin_ns_) return sample_begin_ns_;
  if (now_ns < sample_end_ns_) return sample_end_ns_;
  return end_ns_;
}

}  // namespace xfer::bench
