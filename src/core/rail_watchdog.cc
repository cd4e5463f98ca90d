#include "core/rail_watchdog.h"

#include <chrono>

namespace xfer::core {

uint64_t RailWatchdog::Now() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

RailWatchdog::RailWatchdog(size_t rails) : rails_(std::make_unique<Rail[]>(rails)) {}

void RailWatchdog::Posted(uint32_t rail) {
  // Stamped before it counts in flight: the watcher never sees an idle
  // rail's old stamp with a post in flight.
  if (rails_[rail].in_flight.load(std::memory_order_relaxed) == 0) {
    rails_[rail].progress_ns.store(Now(), std::memory_order_relaxed);
  }
  rails_[rail].in_flight.fetch_add(1, std::memory_order_release);
}

void RailWatchdog::Unposted(uint32_t rail) {
  rails_[rail].in_flight.fetch_sub(1, std::memory_order_relaxed);
}

void RailWatchdog::Finished(uint32_t rail, uint64_t now_ns) {
  rails_[rail].progress_ns.store(now_ns, std::memory_order_relaxed);
  rails_[rail].in_flight.fetch_sub(1, std::memory_order_release);
}

uint64_t RailWatchdog::InFlight(uint32_t rail) const {
  return rails_[rail].in_flight.load(std::memory_order_acquire);
}

uint64_t RailWatchdog::SilentFor(uint32_t rail, uint64_t now_ns) const {
  if (rails_[rail].in_flight.load(std::memory_order_acquire) == 0) return 0;
  const uint64_t progress = rails_[rail].progress_ns.load(std::memory_order_relaxed);
  return now_ns > progress ? now_ns - progress : 0;
}

bool RailWatchdog::Silent(uint32_t rail, uint64_t now_ns, uint64_t timeout_ns) const {
  return SilentFor(rail, now_ns) > timeout_ns;
}

}  // namespace xfer::core
