// The entry point of `xfer`'s perftest-style benchmarks: chooses, once, the
// stack that runs them -- perftest's verbs tests on an RDMA device
// (src/perftest) or the engine's tests over shm/tcp (src/bench) -- and
// enters it from the top in the role BenchParams names. Neither stack calls
// the other or back up into this module.
#ifndef XFER_LAUNCH_RUN_BENCHMARK_H_
#define XFER_LAUNCH_RUN_BENCHMARK_H_

#include <atomic>
#include <optional>
#include <string>

#include "bench/model/bench_params.h"
#include "bench/model/observer.h"
#include "launch/process_pair.h"
#include "xfer/status.h"

namespace xfer::launch {

// The transport perftest's wire runs on ("verbs"), or "" in a build
// without it: what the CLI offers as --wire perftest (cli/flags.h).
std::string PerftestTransport();

// The stack for `params`, by its wire: kPerftest picks perftest's verbs
// tests, kXfer the engine; a wire still undecided (params.wire nullopt)
// picks perftest's on a host with an RDMA device and otherwise the engine,
// noting to `observer` each verbs flag it then ignores. Errors:
// kNotSupported for what the chosen stack cannot run (CUDA memory on the
// perftest wire). A build without verbs always picks the engine.
Result<BenchRoles> ChooseStack(const BenchParams& params, BenchObserver& observer);

// A benchmark ready to start in the role params.role names: its stack
// chosen (ChooseStack), its out-of-band port bound and, for kLoopback, its
// server already forked (LoopbackServer). Prepare it before this process
// starts any thread, StopSignal's included; then Run it once.
class PreparedBenchmark {
 public:
  // kServer binds params.port on all interfaces; kClient binds nothing;
  // kLoopback launches the server. Errors: ChooseStack's, binding's (the
  // port in use), fork's.
  static Result<PreparedBenchmark> Prepare(const BenchParams& params, BenchObserver& observer);

  // kServer serves one client; kClient connects to
  // params.server_host:params.port; kLoopback runs the client against the
  // forked server. Once `stop` holds a signal number the run ends before
  // its next size with kFailedPrecondition "interrupted by SIGINT after N
  // of M sizes" (bench/model/interruption.h); the rows reported so far stand.
  Status Run(BenchObserver& observer, const std::atomic<int>& stop);

 private:
  PreparedBenchmark(const BenchParams& params, BenchRoles roles)
      : params_(params), roles_(std::move(roles)) {}

  BenchParams params_;
  BenchRoles roles_;
  std::optional<Listener> listener_;        // kServer
  std::optional<LoopbackServer> loopback_;  // kLoopback
};

// Prepare, then Run with nothing that stops it early.
// REQUIRES: a test only perftest's wire runs (atomic, send_bw -b) has wire
// kPerftest, or none on a host with an RDMA device; the CLI refuses the
// rest before anything starts (cli/flags.h).
Status RunBenchmark(const BenchParams& params, BenchObserver& observer);

}  // namespace xfer::launch

#endif  // XFER_LAUNCH_RUN_BENCHMARK_H_
