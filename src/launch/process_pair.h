// --loopback: the main job of `xfer` on a single host. The server role runs
// in a forked child process, so that the two sides really are two
// processes (shm maps the other's memory, tcp and RDMA cross a device),
// and the client runs here and reports. Whichever stack runs them, the
// engine's bench or perftest's verbs tests, its two roles come from the
// caller (run_benchmark.h), so neither stack calls the other.
#ifndef XFER_LAUNCH_PROCESS_PAIR_H_
#define XFER_LAUNCH_PROCESS_PAIR_H_

#include <atomic>
#include <functional>

#include "bench/model/bench_params.h"
#include "bench/child_process.h"
#include "bench/model/observer.h"
#include "common/socket.h"
#include "xfer/status.h"

namespace xfer::launch {

using bench::BenchObserver;
using bench::BenchParams;

// The two halves of one benchmark: `serve` answers one client on a bound
// out-of-band listener, `run_client` connects to params.server_host:port.
// Each ends its run before the next size once `stop` is raised
// (bench/model/interruption.h).
struct BenchRoles {
  std::function<Status(const BenchParams&, Listener&, BenchObserver&, const std::atomic<int>&)>
      serve;
  std::function<Status(const BenchParams&, BenchObserver&, const std::atomic<int>&)> run_client;
};

// The server half of a --loopback run, already forked and listening.
// Launch it before this process starts any thread (the child keeps only
// the forking thread). The child ignores SIGINT and SIGTERM: an interrupt
// reaches it as the client's Abort, so that the client, which reports,
// decides how the run ends. It still ends when this process dies (its
// control connection closes). Move-only; destroying it kills the child.
class LoopbackServer {
 public:
  // Binds the out-of-band channel on params.port of 127.0.0.1 (0, the
  // CLI's default without -p: a free port, so parallel runs cannot
  // collide) and forks `roles.serve` with role kServer. The child prints
  // nothing; its failure comes back from RunClient. Errors: binding's (the
  // port in use), fork's.
  static Result<LoopbackServer> Launch(const BenchParams& params, const BenchRoles& roles);

  // Runs `roles.run_client` here with role kClient against the child, then
  // collects the child. A child that has exited is noticed at once (the
  // client's connect is answered and closed rather than refused until
  // --timeout). Errors: the server's own error when the client only lost
  // its connection to it; else the client's, with the server killed; else
  // the server's; kTimeout when the child does not exit within
  // params.timeout after the client finished. Call it once.
  Status RunClient(const BenchParams& params, BenchObserver& observer, const BenchRoles& roles,
                   const std::atomic<int>& stop);

 private:
  LoopbackServer(Listener listener, bench::ChildProcess child)
      : listener_(std::move(listener)), child_(std::move(child)) {}

  Listener listener_;
  bench::ChildProcess child_;
};

// Launch, then RunClient with nothing that stops it early: for callers that
// handle no signals.
Status RunProcessPair(const BenchParams& params, BenchObserver& observer,
                      const BenchRoles& roles);

}  // namespace xfer::launch

#endif  // XFER_LAUNCH_PROCESS_PAIR_H_
