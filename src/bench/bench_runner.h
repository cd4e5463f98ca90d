// Runs one benchmark end to end in the role BenchParams names: sets up the
// session, applies perftest's default-coupling rules, walks the sizes and
// reports every row to the observer. The library entry point of `xfer`.
#ifndef XFER_BENCH_BENCH_RUNNER_H_
#define XFER_BENCH_BENCH_RUNNER_H_

#include <atomic>

#include "bench/model/bench_params.h"
#include "bench/model/observer.h"
#include "common/socket.h"
#include "xfer/status.h"

namespace xfer::bench {

// The client role: connects to params.server_host:params.port and runs the
// test. Errors name the step that failed; the peer is told with an Abort
// message. Once `stop` is raised the run ends before the next size
// (bench/model/interruption.h: the sizes reported so far stand), and the peer is
// told so. (launch/run_benchmark.h picks the role and the stack.)
Status RunClient(const BenchParams& params, BenchObserver& observer,
                 const std::atomic<int>& stop);

// The server role on an already bound out-of-band listener: serves one
// client. `stop` and errors: as RunClient's.
Status RunServer(const BenchParams& params, Listener& listener, BenchObserver& observer,
                 const std::atomic<int>& stop);

}  // namespace xfer::bench

#endif  // XFER_BENCH_BENCH_RUNNER_H_
