// --loopback: the main job of `xfer` on a single host. The server role runs
// in a forked child process, so that the two sides really are two
// processes (shm maps the other's memory, tcp and RDMA cross a device),
// and the client runs here and reports. Whichever stack runs them, the
// engine's bench or perftest's verbs tests, its two roles come from the
// caller (run_benchmark.h), so neither stack calls the other.
#ifndef XFER_LAUNCH_PROCESS_PAIR_H_
#define XFER_LAUNCH_PROCESS_PAIR_H_

#include <functional>

#include "bench/bench_params.h"
#include "bench/observer.h"
#include "common/socket.h"
#include "xfer/status.h"

namespace xfer::launch {

using bench::BenchObserver;
using bench::BenchParams;

// The two halves of one benchmark: `serve` answers one client on a bound
// out-of-band listener, `run_client` connects to params.server_host:port.
struct BenchRoles {
  std::function<Status(const BenchParams&, Listener&, BenchObserver&)> serve;
  std::function<Status(const BenchParams&, BenchObserver&)> run_client;
};

// Binds the out-of-band channel on params.port of 127.0.0.1 (0, the CLI's
// default without -p: a free port, so parallel runs cannot collide), forks
// the server, runs the client. The child prints nothing; its failure comes
// back as this call's error, and a child that has exited is noticed at once
// (the client's connect is answered and closed rather than refused until
// --timeout). Errors: binding's (the port in use); the server's own error
// when the client only lost its connection to it; else the client's, with
// the server killed; else the server's; kTimeout when the child does not
// exit within params.timeout after the client finished.
// `roles.serve` runs in the child with role kServer, `roles.run_client`
// here with role kClient.
Status RunProcessPair(const BenchParams& params, BenchObserver& observer,
                      const BenchRoles& roles);

}  // namespace xfer::launch

#endif  // XFER_LAUNCH_PROCESS_PAIR_H_
