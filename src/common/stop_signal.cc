#include "common/stop_signal.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

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
  while (!stopping_.load(std::memory_order_acquire)) {
    const int got = sigtimedwait(&set, nullptr, &tick);
    if (got <= 0) continue;
    if (signal_.exchange(got, std::memory_order_acq_rel) != 0) _exit(128 + got);
  }
}

}  // namespace xfer
