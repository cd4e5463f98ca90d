// Proof of life on a control channel while the thread that owns it is busy
// measuring: `beat` runs about once a second from a thread of its own, so
// the measuring loop never pays for it, until the Heartbeat is destroyed.
// The peer's receive timeout then bounds its silence, not a run's length.
#ifndef XFER_BENCH_HEARTBEAT_H_
#define XFER_BENCH_HEARTBEAT_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "xfer/status.h"

namespace xfer::bench {

class Heartbeat {
 public:
  // Inert when `enabled` is false. `beat` must be safe to call concurrently
  // with whatever else the owner does on the channel; it stops being called
  // after its first failure (the run itself will report the loss).
  Heartbeat(std::function<Status()> beat, bool enabled,
            std::chrono::milliseconds period = std::chrono::seconds(1));
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

 private:
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;  // GUARDED_BY(mu_)
  std::thread thread_;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_HEARTBEAT_H_
