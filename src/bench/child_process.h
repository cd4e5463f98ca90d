// The forked half of a single-host run (--loopback): the peer role runs in
// a child process, so the two engines really are two processes (shm maps
// the other's memory, tcp crosses the loopback device).
#ifndef XFER_BENCH_CHILD_PROCESS_H_
#define XFER_BENCH_CHILD_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>

#include "xfer/status.h"

namespace xfer::bench {

// Forks; the child runs `body`, prints "xfer: <label>: <error>" on stderr if
// it fails, and _exits 0 or 1 without returning. Fork before this process
// starts any thread: the child has only the forking thread. Errors: kIoError
// when fork fails.
Result<pid_t> ForkChild(const std::function<Status()>& body, const std::string& label);

// Reaps `child` within `timeout`, killing it if it overstays. Errors:
// kTimeout (killed), kInternal (it failed or died by a signal; its own
// message is on stderr), kIoError.
Status ReapChild(pid_t child, std::chrono::milliseconds timeout, const std::string& label);

}  // namespace xfer::bench

#endif  // XFER_BENCH_CHILD_PROCESS_H_
