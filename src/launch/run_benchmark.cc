#include "launch/run_benchmark.h"

#include <fmt/format.h>

#include "bench/bench_runner.h"
#include "common/socket.h"

#if XFER_WITH_VERBS
#include "perftest/test_flow.h"
#include "verbs/device_catalog.h"
#endif

namespace xfer::launch {
namespace {

using bench::Role;

BenchRoles EngineStack() { return {bench::RunServer, bench::RunClient}; }

#if XFER_WITH_VERBS
bool HostHasRdmaDevice() {
  auto devices = verbs::ListDevices();
  return devices.ok() && !devices->empty();
}

// perftest's verbs tests register host memory only in this build.
Result<BenchRoles> VerbsStack(const BenchParams& params) {
  if (params.cuda_device || !params.cuda_bus_id.empty()) {
    return NotSupported(
        "--use_cuda on the RDMA verbs path: registering device memory with the NIC "
        "(GPUDirect RDMA, through DMA-BUF or nvidia-peermem) is not in this build; "
        "--transport shm (one host, CUDA IPC) or tcp (staged) move CUDA memory");
  }
  return BenchRoles{perftest::RunVerbsServer, perftest::RunVerbsClient};
}
#endif

}  // namespace

Result<BenchRoles> ChooseStack(const BenchParams& params, BenchObserver& observer) {
#if XFER_WITH_VERBS
  // perftest's wire protocol has no place for a secret: an authenticated
  // run is the engine's, whose handshake carries it (over its own verbs
  // transport where that is the one chosen). A stock perftest peer cannot
  // take part in it.
  if (!params.secret.empty()) {
    if (params.transport == "verbs" || (params.transport.empty() && HostHasRdmaDevice())) {
      observer.OnNotice(
          "--secret-file: running on the engine's authenticated handshake, not perftest's wire "
          "protocol (which has no place for a secret); a stock perftest peer cannot join");
    }
    return EngineStack();
  }
  if (params.transport == "verbs") return VerbsStack(params);
  if (params.transport.empty()) {
    if (HostHasRdmaDevice()) return VerbsStack(params);
    for (const std::string& typed : params.verbs.typed) {
      observer.OnNotice(fmt::format("{}: RDMA verbs flag; no RDMA device on this host, ignored",
                                    typed));
    }
  }
#else
  // The parser has refused the tests and flags only verbs runs.
  (void)params;
  (void)observer;
#endif
  return EngineStack();
}

Status RunBenchmark(const BenchParams& params, BenchObserver& observer) {
  auto roles = ChooseStack(params, observer);
  if (!roles.ok()) return roles.status();
  switch (params.role) {
    case Role::kLoopback:
      return RunProcessPair(params, observer, *roles);
    case Role::kServer: {
      auto listener = Listener::Bind({"0.0.0.0", params.port}, 1);
      if (!listener.ok()) return listener.status().WithContext("out-of-band port (-p)");
      return roles->serve(params, *listener, observer);
    }
    case Role::kClient:
      return roles->run_client(params, observer);
  }
  return Internal("unknown role");
}

}  // namespace xfer::launch
