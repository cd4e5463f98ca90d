// Which rails of a connection have gone silent: work in flight on them and
// nothing completed for longer than a timeout. A rail whose link dies
// without a word (a cable pulled under tcp, a switch port that drops every
// frame, a Soft-RoCE retry that never ends) completes nothing and fails
// nothing; only the time since it last made progress tells.
//
// Progress, not a clock per slice: slices queue behind each other on a
// rail, so the oldest one may wait behind a deep queue on a slow but
// healthy link. A rail is silent when it has posts in flight and neither
// completed one nor went from idle to busy within the timeout.
//
// Thread-safe and lock-free: posting threads call Posted, transport
// threads Finished, the watching thread Silent.
#ifndef XFER_CORE_RAIL_WATCHDOG_H_
#define XFER_CORE_RAIL_WATCHDOG_H_

#include <atomic>
#include <cstdint>
#include <memory>

namespace xfer::core {

class RailWatchdog {
 public:
  explicit RailWatchdog(size_t rails);
  RailWatchdog(const RailWatchdog&) = delete;
  RailWatchdog& operator=(const RailWatchdog&) = delete;

  // Times are nanoseconds of std::chrono::steady_clock, which the rail
  // striper's completions read already.
  static uint64_t Now();

  // A post to `rail` is about to reach its transport. Each is matched by
  // one Finished, or by Unposted when the transport refuses it. Reads the
  // clock only when the rail was idle.
  void Posted(uint32_t rail);
  void Unposted(uint32_t rail);
  // A post to `rail` completed (or failed) at `now_ns`: progress.
  void Finished(uint32_t rail, uint64_t now_ns);

  // Whether `rail` had posts in flight at `now_ns` and made no progress for
  // longer than `timeout_ns`.
  bool Silent(uint32_t rail, uint64_t now_ns, uint64_t timeout_ns) const;
  // Posts to `rail` in flight (or about to reach its transport).
  uint64_t InFlight(uint32_t rail) const;
  // Nanoseconds since `rail` last made progress at `now_ns`; 0 when idle.
  uint64_t SilentFor(uint32_t rail, uint64_t now_ns) const;

 private:
  struct Rail {
    std::atomic<uint64_t> in_flight{0};
    std::atomic<uint64_t> progress_ns{0};
  };
  std::unique_ptr<Rail[]> rails_;
};

}  // namespace xfer::core

#endif  // XFER_CORE_RAIL_WATCHDOG_H_
