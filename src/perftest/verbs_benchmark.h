// The perftest-compatible verbs benchmarks end to end: for each test the
// exact out-of-band exchange sequence of stock perftest
// (../shared/reference/perftest.md §1.6) around the traffic engines, so
// that either side can be xfer or a stock ib_* tool.
#ifndef XFER_PERFTEST_VERBS_BENCHMARK_H_
#define XFER_PERFTEST_VERBS_BENCHMARK_H_

#include <atomic>
#include <string_view>

#include "bench/model/bench_params.h"
#include "bench/model/observer.h"
#include "common/socket.h"
#include "xfer/status.h"

namespace xfer::perftest {

// The one transport perftest's wire protocol and tests run on.
inline constexpr std::string_view kTransport = "verbs";

// The client: connects to params.server_host:params.port and runs. Once
// `stop` is raised the run ends before its next size
// (bench/model/interruption.h); the peer sees the connection close, as a stock
// perftest peer would when its partner is interrupted.
Status RunVerbsClient(const bench::BenchParams& params, bench::BenchObserver& observer,
                      const std::atomic<int>& stop);

// The server: accepts one client on `listener` and runs. `stop`: as the
// client's.
Status RunVerbsServer(const bench::BenchParams& params, Listener& listener,
                      bench::BenchObserver& observer, const std::atomic<int>& stop);

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_VERBS_BENCHMARK_H_
