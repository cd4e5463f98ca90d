#include "bench/loopback.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include "bench/bench_runner.h"
#include "common/clock.h"
#include "common/socket.h"

namespace xfer::bench {
namespace {

// The child's observer: the parent prints the table, the child stays quiet.
class SilentObserver final : public BenchObserver {
 public:
  void OnNotice(const std::string&) override {}
  void OnWaitingForClient() override {}
  void OnStart(const RunInfo&) override {}
  void OnBandwidth(const BwResult&) override {}
  void OnLatency(const LatResult&) override {}
  void OnLatencyDuration(const LatDurationResult&) override {}
};

[[noreturn]] void ServeAndExit(BenchParams params, Listener& listener,
                               const LoopbackRoles& roles) {
  params.role = Role::kServer;
  params.accept_timeout = params.timeout;
  SilentObserver silent;
  Status status = roles.serve(params, listener, silent);
  if (!status.ok()) std::fprintf(stderr, "xfer: loopback server: %s\n", status.ToString().c_str());
  std::fflush(stderr);
  _exit(status.ok() ? 0 : 1);
}

// Reaps the child within `timeout`, killing it if it overstays.
Status ReapServer(pid_t child, std::chrono::milliseconds timeout) {
  const Deadline deadline = Deadline::After(timeout);
  int wstatus = 0;
  for (;;) {
    pid_t done = waitpid(child, &wstatus, WNOHANG);
    if (done == child) break;
    if (done < 0) return IoError(ErrnoMessage("waitpid", errno));
    if (deadline.expired()) {
      kill(child, SIGKILL);
      waitpid(child, &wstatus, 0);
      return Timeout("loopback server did not exit in time; killed it");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) return Status::Ok();
  if (WIFSIGNALED(wstatus)) {
    return Internal(fmt::format("loopback server died with signal {}", WTERMSIG(wstatus)));
  }
  return Internal("loopback server failed (see its message above)");
}

}  // namespace

Status RunLoopback(const BenchParams& params, BenchObserver& observer) {
  return RunLoopback(params, observer, {RunServer, RunBench});
}

Status RunLoopback(const BenchParams& params, BenchObserver& observer,
                   const LoopbackRoles& roles) {
  auto listener = Listener::Bind({"127.0.0.1", 0}, 1);
  if (!listener.ok()) return listener.status().WithContext("loopback out-of-band port");
  std::fflush(stdout);
  std::fflush(stderr);
  // Forked before any engine or thread exists in this process.
  const pid_t child = fork();
  if (child < 0) return IoError(ErrnoMessage("fork", errno));
  if (child == 0) ServeAndExit(params, *listener, roles);

  BenchParams client = params;
  client.role = Role::kClient;
  client.server_host = "127.0.0.1";
  client.port = listener->local_address().port;
  listener->Close();
  Status status = roles.run_client(client, observer);
  Status server = ReapServer(child, params.timeout);
  return status.ok() ? server : status;
}

}  // namespace xfer::bench
