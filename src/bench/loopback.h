// --loopback: the main job of `xfer` on a single host. The server role runs
// in a forked child process, so that the two engines really are two
// processes (shm maps the other's memory, tcp crosses the loopback device),
// and the client runs here and reports.
#ifndef XFER_BENCH_LOOPBACK_H_
#define XFER_BENCH_LOOPBACK_H_

#include <functional>

#include "bench/bench_params.h"
#include "bench/observer.h"
#include "common/socket.h"
#include "xfer/status.h"

namespace xfer::bench {

// Binds the out-of-band channel on params.port of 127.0.0.1 (0, the CLI's
// default without -p: a free port, so parallel runs cannot collide), forks
// the server, runs the client. The child prints nothing; its failure comes
// back as this call's error, and a child that has exited is noticed at once
// (the client's connect is answered and closed rather than refused until
// --timeout). Errors: binding's (the port in use); the server's own error
// when the client only lost its connection to it; else the client's, with
// the server killed; else the server's; kTimeout when the child does not
// exit within params.timeout after the client finished.
Status RunLoopback(const BenchParams& params, BenchObserver& observer);

// The two halves of a loopback run, for a benchmark path other than the
// engine's (the perftest-compatible verbs tests): `serve` runs in the
// child on the bound listener, `run_client` here with role kClient.
struct LoopbackRoles {
  std::function<Status(const BenchParams&, Listener&, BenchObserver&)> serve;
  std::function<Status(const BenchParams&, BenchObserver&)> run_client;
};
Status RunLoopback(const BenchParams& params, BenchObserver& observer,
                   const LoopbackRoles& roles);

}  // namespace xfer::bench

#endif  // XFER_BENCH_LOOPBACK_H_
