#include "common/stop_signal.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

namespace xfer {
namespace {

sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

StopSignal::StopSignal() {
  const sigset_t set = StopSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  watcher_ = std::thread([this] { Watch(); });
}

StopSignal::~StopSignal() {
  stopping_.store(true, std::memory_order_release);
  watcher_.join();
  const sigset_t set = StopSignals();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

void StopSignal::Watch() {
  const sigset_t set = StopSignals();
  // A bounded wait, so that the destructor is never held up for long.
  const timespec tick{0, 100'000'000};
  std::chrono::steady_clock::time_point first{};
  while (!stopping_.load(std::memory_order_acquire)) {
    const int got = sigtimedwait(&set, nullptr, &tick);
    if (got <= 0) continue;
    const auto now = std::chrono::steady_clock::now();
    if (signal_.load(std::memory_order_acquire) == 0) {
      first = now;
      signal_.store(got, std::memory_order_release);
      continue;
    }
    // One interruption often arrives twice: timeout(1) signals the command,
    // then its whole process group, and a terminal's Ctrl-C reaches every
    // process of the foreground group. Only a signal after kRepeatWindow is
    // a second request.
    if (now - first >= kRepeatWindow) _exit(128 + got);
  }
}

}  // namespace xfer
