// The entry point of `xfer`'s benchmarks: runs perftest's verbs tests on an
// RDMA device (src/perftest) or the engine-based tests over shm/tcp
// (src/bench), whichever BenchParams::transport selects.
#ifndef XFER_PERFTEST_RUN_BENCHMARK_H_
#define XFER_PERFTEST_RUN_BENCHMARK_H_

#include "bench/bench_params.h"
#include "bench/observer.h"
#include "xfer/status.h"

namespace xfer::perftest {

// transport "verbs" runs the verbs tests; "" runs them when this host has
// an RDMA device and otherwise falls back to the engine, noting the verbs
// flags it ignores; any other name runs the engine. Roles as in
// bench::RunBench (server, client, --loopback with a forked server).
// REQUIRES: a test only verbs runs (atomic, send_bw -b) has transport
// "verbs", or "" on a host with an RDMA device; the CLI refuses the rest
// before anything starts (cli/flags.h).
Status RunBenchmark(const bench::BenchParams& params, bench::BenchObserver& observer);

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_RUN_BENCHMARK_H_
