// Turns SIGINT and SIGTERM into a stop request that long-running loops poll
// between steps, so an interrupted run can finish its bookkeeping (close the
// cell it was in, write its files, tell the peer) instead of dying mid-way.
// A second signal, kRepeatWindow or more after the first, ends the process
// at once with status 128+signal; one within it is the same interruption
// delivered twice (timeout(1) signals the command and then its group).
#ifndef XFER_COMMON_STOP_SIGNAL_H_
#define XFER_COMMON_STOP_SIGNAL_H_

#include <atomic>
#include <chrono>
#include <thread>

namespace xfer {

// Construct it before any other thread of the process exists: it blocks the
// two signals in the calling thread, and threads created afterwards inherit
// that mask, so only its own watcher thread receives them. The destructor
// restores the mask. At most one instance per process.
class StopSignal {
 public:
  StopSignal();
  ~StopSignal();
  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;

  static constexpr std::chrono::milliseconds kRepeatWindow{500};

  // The signal that arrived, 0 if none. Thread-safe.
  int signal() const { return signal_.load(std::memory_order_acquire); }
  // The flag itself, for code that must not depend on this class.
  const std::atomic<int>& flag() const { return signal_; }

 private:
  void Watch();

  std::atomic<int> signal_{0};
  std::atomic<bool> stopping_{false};
  std::thread watcher_;
};

}  // namespace xfer

#endif  // XFER_COMMON_STOP_SIGNAL_H_
