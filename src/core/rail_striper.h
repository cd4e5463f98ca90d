// How a request's bytes are dealt over a connection's rails (one path each
// between the two engines: a pair of NICs, a pair of addresses), the way
// Mooncake's TENT deals slices over NICs:
//  - a request of at least stripe_from_bytes is cut into slices: units of
//    slice_unit bytes, at most max_slices of them, a tail under a quarter
//    of a slice merged into the one before;
//  - each slice goes to the rail with the lowest score, (bytes in flight
//    on it + the slice) / its bandwidth estimate, so that a faster rail
//    and a less loaded one take more;
//  - a smaller request stays whole, on the first rail whose bytes in
//    flight are within a slice of the least loaded one's: tiny requests
//    keep to rail 0 until it backs up, rather than waking every rail's
//    threads for a few bytes each (they are bound by CPU, not links);
//  - every probe_every-th request is dealt round-robin instead, whole, so
//    that a rail the scores starve is still measured.
// The estimate starts at the rail's nominal rate and follows what the rail
// achieves while saturated: the bytes it completed over the time between
// completions that found at least two slices still queued on it, once that
// time reaches kMinBusy, forgetting the older half whenever it passes
// kHorizon. (Per-completion or short-window samples measured the bursts in
// which completions arrive; counting a rail's idle-ish stretches measured
// tcp's restart after idle, which starved a rail that had been dealt less:
// both dealt 19 to 34 % to four equal rails.)
//
// Thread-safe and lock-free: posting threads Deal() while transport
// threads report Completed(); the scores read a moment's state, which is
// what a heuristic needs.
#ifndef XFER_CORE_RAIL_STRIPER_H_
#define XFER_CORE_RAIL_STRIPER_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace xfer::core {

class RailStriper {
 public:
  struct Options {
    uint64_t slice_unit = uint64_t{64} << 10;
    uint32_t max_slices = 32;
    // Requests below this stay whole on one rail: cutting them would cost
    // more in posts than a second rail gives back.
    uint64_t stripe_from_bytes = uint64_t{256} << 10;
    uint32_t probe_every = 100;
    // Requests below this go straight to rail 0 while it is lightly loaded
    // (Direct), untracked: a few bytes are bound by the CPU, which
    // tracking them would cost more than another rail gives back.
    uint64_t direct_below_bytes = 1024;
  };

  // One slice: the bytes [offset, offset + length) of the request, in the
  // order of its entries, for `rail`.
  struct Slice {
    uint32_t rail;
    uint64_t offset;
    uint64_t length;
  };

  // What one rail has carried, for PeerInfo.
  struct RailStats {
    uint64_t bytes = 0;        // completed
    uint64_t slices = 0;       // completed
    uint64_t in_flight = 0;    // dealt, not yet completed
    double bytes_per_sec = 0;  // the estimate
    bool up = true;            // takes new slices (SetUp)
  };

  // `nominal_bytes_per_sec`: each rail's rate as its link reports it; 0
  // when unknown (such a rail starts at the fastest known one's, or all at
  // one rate when none is known). 1 to kMaxRails rails.
  RailStriper(std::span<const double> nominal_bytes_per_sec, Options options);
  RailStriper(const RailStriper&) = delete;
  RailStriper& operator=(const RailStriper&) = delete;

  // The most rails a connection has: 16 NICs per host is the most the
  // machines our users run on have.
  static constexpr size_t kMaxRails = 16;

  size_t rails() const { return rails_.size(); }

  using Clock = std::chrono::steady_clock;

  static constexpr std::chrono::milliseconds kMinBusy{5};
  static constexpr std::chrono::milliseconds kHorizon{200};

  // Whether a request of `bytes` goes to rail 0 directly, neither dealt nor
  // counted: it is below direct_below_bytes and rail 0 is lightly loaded
  // (as for a small request, above).
  bool Direct(uint64_t bytes) const {
    return bytes < options_.direct_below_bytes && FirstLightlyLoaded() == 0;
  }

  // Deals a request of `bytes` (> 0): appends its slices to `out` in byte
  // order, and counts them in flight on their rails. Slices that follow
  // each other on one rail are merged.
  void Deal(uint64_t bytes, std::vector<Slice>& out);

  // `bytes` dealt to `rail` finished at `finished` (or failed: `ok`
  // false): they leave its bytes in flight, and a success counts towards
  // its estimate.
  void Completed(uint32_t rail, uint64_t bytes, Clock::time_point finished, bool ok);

  RailStats Stats(uint32_t rail) const;

  // Failover (striped_endpoint.h): a rail that failed is taken down and
  // dealt nothing more; Deal, Direct and the small-request choice skip it.
  // Deal and Direct REQUIRE AnyUp(): with every rail down there is nowhere
  // to deal, and the caller fails the request instead.
  void SetUp(uint32_t rail, bool up);
  bool Up(uint32_t rail) const { return rails_[rail].up.load(std::memory_order_acquire); }
  bool AnyUp() const;
  // The up rail, other than `except`, with the lowest score for `bytes`
  // more, which are counted in flight on it: where a failed slice is dealt
  // again (`except` kMaxRails: none excepted). -1 when no other rail is up.
  int Redeal(uint64_t bytes, uint32_t except);

 private:
  struct Rail {
    std::atomic<uint64_t> in_flight{0};
    std::atomic<uint64_t> bytes{0};
    std::atomic<uint64_t> slices{0};
    std::atomic<double> bytes_per_sec{1};  // the estimate, read without the lock
    std::atomic<bool> up{true};
    // The saturated time counted, and the bytes completed in it. Taken by
    // completions only (of one rail: its transport's threads).
    std::mutex mu;
    int64_t last_completion_ns = 0;  // GUARDED_BY(mu): steady clock; 0 before the first
    uint64_t left_then = 0;          // GUARDED_BY(mu): in flight after it
    int64_t busy_ns = 0;             // GUARDED_BY(mu)
    uint64_t busy_bytes = 0;         // GUARDED_BY(mu)
  };

  // The up rail with the lowest score for `bytes` more, counting `planned`
  // bytes already dealt to each in this call, other than `except` (-1:
  // none excepted); -1 when no such rail is up.
  int Best(uint64_t bytes, std::span<const uint64_t> planned, int except = -1) const;
  // The `n`-th up rail, round-robin (the probes).
  uint32_t NthUp(uint64_t n) const;
  // The rail for a small request (see above).
  uint32_t FirstLightlyLoaded() const;

  const Options options_;
  std::unique_ptr<Rail[]> rails_storage_;
  std::span<Rail> rails_;
  std::atomic<uint64_t> requests_{0};
};

}  // namespace xfer::core

#endif  // XFER_CORE_RAIL_STRIPER_H_
