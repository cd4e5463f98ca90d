#include "launch/run_benchmark.h"

#include <fmt/format.h>

#include "bench/bench_runner.h"
#include "bench/model/interruption.h"
#include "common/build_options.h"
#include "common/socket.h"
#include "launch/numa_placement.h"

#if XFER_WITH_VERBS
#include "perftest/verbs_benchmark.h"
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

Result<BenchRoles> VerbsStack(const BenchParams& /*params*/) {
  return BenchRoles{perftest::RunVerbsServer, perftest::RunVerbsClient};
}
#endif

}  // namespace

std::string PerftestTransport() {
#if XFER_WITH_VERBS
  return std::string(perftest::kTransport);
#else
  return "";
#endif
}

Result<BenchRoles> ChooseStack(const BenchParams& params, BenchObserver& observer) {
#if XFER_WITH_VERBS
  const bool decided = params.wire.has_value();
  const bench::Wire wire =
      decided ? *params.wire : (HostHasRdmaDevice() ? bench::Wire::kPerftest : bench::Wire::kXfer);
  if (wire == bench::Wire::kPerftest) return VerbsStack(params);
  if (!decided) {
    for (const std::string& typed : params.verbs.typed) {
      observer.OnNotice(fmt::format("{}: RDMA verbs flag; no RDMA device on this host, ignored",
                                    typed));
    }
  }
#else
  // The parser has refused --wire perftest and the tests only it runs.
  (void)params;
  (void)observer;
#endif
  return EngineStack();
}

Result<PreparedBenchmark> PreparedBenchmark::Prepare(const BenchParams& params,
                                                     BenchObserver& observer) {
  auto roles = ChooseStack(params, observer);
  if (!roles.ok()) return roles.status();
  PreparedBenchmark prepared(params, std::move(*roles));
  // Before any thread or the loopback server's fork: both inherit it.
  const topology::SysfsReader sysfs;
  XFER_RETURN_IF_ERROR(PlaceProcess(prepared.params_, PlacementDevice(prepared.params_, sysfs), sysfs));
  switch (params.role) {
    case Role::kLoopback: {
      auto server = LoopbackServer::Launch(prepared.params_, prepared.roles_);
      if (!server.ok()) return server.status();
      prepared.loopback_.emplace(std::move(*server));
      break;
    }
    case Role::kServer: {
      auto listener = Listener::Bind({"0.0.0.0", params.port}, 1);
      if (!listener.ok()) return listener.status().WithContext("out-of-band port (-p)");
      prepared.listener_.emplace(std::move(*listener));
      break;
    }
    case Role::kClient:
      break;
  }
  return prepared;
}

Status PreparedBenchmark::Run(BenchObserver& observer, const std::atomic<int>& stop) {
  if (loopback_) return loopback_->RunClient(params_, observer, roles_, stop);
  if (listener_) return roles_.serve(params_, *listener_, observer, stop);
  return roles_.run_client(params_, observer, stop);
}

Status RunBenchmark(const BenchParams& params, BenchObserver& observer) {
  auto prepared = PreparedBenchmark::Prepare(params, observer);
  if (!prepared.ok()) return prepared.status();
  return prepared->Run(observer, bench::NeverStopped());
}

}  // namespace xfer::launch
