// perftest's duration-mode timeline (§2.3: warm up for margin, sample for
// D - 2*margin, run margin more), driven by clock readings the loop already
// takes instead of perftest's SIGALRM handler.
#ifndef XFER_BENCH_DURATION_TRACKER_H_
#define XFER_BENCH_DURATION_TRACKER_H_

#include <cstdint>

namespace xfer::bench {

class DurationTracker {
 public:
  DurationTracker(double duration_s, double margin_s, uint64_t start_ns)
      : sample_start_(start_ns + Ns(margin_s)),
        sample_end_(start_ns + Ns(duration_s - margin_s)),
        end_(start_ns + Ns(duration_s)) {}

  // Records one finished exchange at `now_ns`. Returns false once the run
  // is over (past D), true while it should go on.
  bool Tick(uint64_t now_ns) {
    if (now_ns >= sample_start_ && now_ns < sample_end_) {
      if (count_ == 0) first_ns_ = now_ns;
      last_ns_ = now_ns;
      ++count_;
    }
    return now_ns < end_;
  }

  // Exchanges that finished inside the sample window, and the time between
  // the first and the last of them (0 when fewer than two).
  uint64_t window_count() const { return count_ > 1 ? count_ - 1 : 0; }
  uint64_t window_ns() const { return count_ > 1 ? last_ns_ - first_ns_ : 0; }

 private:
  static uint64_t Ns(double seconds) { return static_cast<uint64_t>(seconds * 1e9); }
  uint64_t sample_start_, sample_end_, end_;
  uint64_t count_ = 0, first_ns_ = 0, last_ns_ = 0;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_DURATION_TRACKER_H_
