#include "bench/heartbeat.h"

#include <utility>

namespace xfer::bench {

Heartbeat::Heartbeat(std::function<Status()> beat, bool enabled,
                     std::chrono::milliseconds period) {
  if (!enabled) return;
  thread_ = std::thread([this, beat = std::move(beat), period] {
    std::unique_lock lock(mu_);
    while (!wake_.wait_for(lock, period, [this] { return stop_; })) {
      if (!beat().ok()) return;
    }
  });
}

Heartbeat::~Heartbeat() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace xfer::bench
