#include "perftest/run_benchmark.h"

#include <fmt/format.h>

#include "bench/bench_runner.h"
#include "bench/loopback.h"
#include "perftest/test_flow.h"
#include "verbs/device_catalog.h"

namespace xfer::perftest {
namespace {

using bench::Role;

bool HostHasRdmaDevice() {
  auto devices = verbs::ListDevices();
  return devices.ok() && !devices->empty();
}

Status RunVerbs(const bench::BenchParams& params, bench::BenchObserver& observer) {
  switch (params.role) {
    case Role::kLoopback:
      return bench::RunLoopback(params, observer, {RunVerbsServer, RunVerbsClient});
    case Role::kServer: {
      auto listener = Listener::Bind({"0.0.0.0", params.port}, 1);
      if (!listener.ok()) return listener.status().WithContext("out-of-band port (-p)");
      return RunVerbsServer(params, *listener, observer);
    }
    case Role::kClient:
      return RunVerbsClient(params, observer);
  }
  return Internal("unknown role");
}

// perftest's verbs tests register host memory only in this build.
Status RunVerbsOnHostMemory(const bench::BenchParams& params, bench::BenchObserver& observer) {
  if (params.cuda_device || !params.cuda_bus_id.empty()) {
    return NotSupported(
        "--use_cuda on the RDMA verbs path: registering device memory with the NIC "
        "(GPUDirect RDMA, through DMA-BUF or nvidia-peermem) is not in this build; "
        "--transport shm (one host, CUDA IPC) or tcp (staged) move CUDA memory");
  }
  return RunVerbs(params, observer);
}

}  // namespace

Status RunBenchmark(const bench::BenchParams& params, bench::BenchObserver& observer) {
  if (params.transport == "verbs") return RunVerbsOnHostMemory(params, observer);
  if (params.transport.empty()) {
    if (HostHasRdmaDevice()) return RunVerbsOnHostMemory(params, observer);
    for (const std::string& typed : params.verbs.typed) {
      observer.OnNotice(fmt::format("{}: RDMA verbs flag; no RDMA device on this host, ignored",
                                    typed));
    }
  }
  return bench::RunBench(params, observer);
}

}  // namespace xfer::perftest
