// The perftest-compatible verbs benchmarks end to end: for each test the
// exact out-of-band exchange sequence of stock perftest
// (../shared/reference/perftest.md §1.6) around the traffic engines, so
// that either side can be xfer or a stock ib_* tool.
#ifndef XFER_PERFTEST_TEST_FLOW_H_
#define XFER_PERFTEST_TEST_FLOW_H_

#include "bench/bench_params.h"
#include "bench/observer.h"
#include "common/socket.h"
#include "xfer/status.h"

namespace xfer::perftest {

// The client: connects to params.server_host:params.port and runs.
Status RunVerbsClient(const bench::BenchParams& params, bench::BenchObserver& observer);

// The server: accepts one client on `listener` and runs.
Status RunVerbsServer(const bench::BenchParams& params, Listener& listener,
                      bench::BenchObserver& observer);

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_TEST_FLOW_H_
