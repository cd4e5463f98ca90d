// How a perftest-style run stops when the user interrupts it: at once, in
// the middle of a size too (its loops look at the flag whenever they read
// the clock, at least once a millisecond), so that Ctrl-C during a long -n
// or -D ends the run within milliseconds. A size interrupted mid-way is
// dropped, never reported: every size a run reports was measured whole.
// The interrupted side tells its peer (Abort), which leaves its loop at
// the same point. The flag is common/stop_signal.h's (the signal number, 0
// while running); bench code reads it and never depends on how it was set.
#ifndef XFER_BENCH_MODEL_INTERRUPTION_H_
#define XFER_BENCH_MODEL_INTERRUPTION_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "common/clock.h"
#include "xfer/status.h"

namespace xfer::bench {

// A flag that is never raised: for a side that cannot be interrupted on
// its own (the --loopback child, which ignores the signals and learns of
// an interrupt from its peer's Abort).
inline const std::atomic<int>& NeverStopped() {
  static const std::atomic<int> never{0};
  return never;
}

// OK while `stop` is 0. Once it holds a signal number: kFailedPrecondition
// "interrupted by SIGINT after 11 of 23 sizes", `done` being the sizes
// finished so far out of `total`.
Status CheckInterrupted(const std::atomic<int>& stop, size_t done, size_t total);

// OK while `stop` is 0; else kFailedPrecondition "interrupted by SIGINT".
Status CheckInterrupted(const std::atomic<int>& stop);

// For a measuring loop: OK while `stop` is 0; else kFailedPrecondition
// "interrupted by SIGINT while measuring size 65536 (dropped: not measured
// whole)". One relaxed load while running: cheap enough for a hot loop.
Status CheckInterruptedAt(const std::atomic<int>& stop, uint64_t size);

// How often a wait for a peer (a client's connection, a server to connect
// to) looks at the stop flag.
inline constexpr std::chrono::milliseconds kInterruptSlice{100};

// Waits with `attempt(slice_deadline)`, in slices of at most
// kInterruptSlice, until the attempt gives anything but kTimeout,
// `deadline` passes, or `stop` is raised: so that Ctrl-C ends a wait for a
// peer at once instead of at --accept_timeout. Errors: the attempt's
// (kTimeout once `deadline` has passed); CheckInterrupted(stop)'s.
template <typename Attempt>
auto WaitUnlessInterrupted(Deadline deadline, const std::atomic<int>& stop, Attempt&& attempt)
    -> decltype(attempt(deadline)) {
  for (;;) {
    XFER_RETURN_IF_ERROR(CheckInterrupted(stop));
    auto result = attempt(deadline.EarlierOf(Deadline::After(kInterruptSlice)));
    if (result.ok() || result.status().code() != StatusCode::kTimeout || deadline.expired()) {
      return result;
    }
  }
}

}  // namespace xfer::bench

#endif  // XFER_BENCH_MODEL_INTERRUPTION_H_
