#include "bench/loopback.h"

#include "bench/bench_runner.h"
#include "bench/child_process.h"
#include "common/socket.h"

namespace xfer::bench {
namespace {

class SilentObserver final : public BenchObserver {
 public:
  void OnNotice(const std::string&) override {}
  void OnWaitingForClient() override {}
  void OnStart(const RunInfo&) override {}
  void OnBandwidth(const BwResult&) override {}
  void OnLatency(const LatResult&) override {}
  void OnLatencyDuration(const LatDurationResult&) override {}
};

}  // namespace

Status RunLoopback(const BenchParams& params, BenchObserver& observer) {
  return RunLoopback(params, observer, {RunServer, RunBench});
}

Status RunLoopback(const BenchParams& params, BenchObserver& observer,
                   const LoopbackRoles& roles) {
  auto listener = Listener::Bind({"127.0.0.1", params.port}, 1);
  if (!listener.ok()) return listener.status().WithContext("loopback out-of-band port (-p)");
  BenchParams server = params;
  server.role = Role::kServer;
  server.accept_timeout = params.timeout;
  // Forked before any engine or thread exists in this process. The child's
  // observer stays quiet: the parent prints the table.
  auto child = ForkChild(
      [&] {
        SilentObserver silent;
        return roles.serve(server, *listener, silent);
      },
      "loopback server");
  if (!child.ok()) return child.status();

  BenchParams client = params;
  client.role = Role::kClient;
  client.server_host = "127.0.0.1";
  client.port = listener->local_address().port;
  listener->Close();
  Status status = roles.run_client(client, observer);
  Status reaped = ReapChild(*child, params.timeout, "loopback server");
  return status.ok() ? reaped : status;
}

}  // namespace xfer::bench
