// --loopback: the main job of `xfer` on a single host. The server role runs
// in a forked child process, so that the two engines really are two
// processes (shm maps the other's memory, tcp crosses the loopback device),
// and the client runs here and reports.
#ifndef XFER_BENCH_LOOPBACK_H_
#define XFER_BENCH_LOOPBACK_H_

#include "bench/bench_params.h"
#include "bench/observer.h"
#include "xfer/status.h"

namespace xfer::bench {

// Binds the out-of-band channel on a free port of 127.0.0.1 (never -p, so
// parallel runs cannot collide), forks the server, runs the client. The child prints nothing; its
// failure comes back as this call's error. Errors: the client's, else the
// server's, else kTimeout when the child does not exit within
// params.timeout after the client finished.
Status RunLoopback(const BenchParams& params, BenchObserver& observer);

}  // namespace xfer::bench

#endif  // XFER_BENCH_LOOPBACK_H_
