#include "launch/process_pair.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "bench/child_process.h"
#include "bench/model/interruption.h"
#include "common/socket.h"

namespace xfer::launch {

using bench::ChildProcess;
using bench::Role;
using bench::SilentObserver;
namespace {

// Stands in for the server once the child has exited: accepts every
// connection the client makes and closes it at once, so the client fails
// with a lost connection instead of retrying its connect until --timeout.
// It shares the listening socket with the child and touches it only after
// the child is gone.
class StandInAfterChild {
 public:
  StandInAfterChild(const Listener& listener, int child_exit_fd) {
    if (::pipe2(stop_, O_CLOEXEC) != 0) return;
    thread_ = std::thread([this, fd = listener.fd(), child_exit_fd] { Serve(fd, child_exit_fd); });
  }
  ~StandInAfterChild() {
    if (thread_.joinable()) {
      const char stop = 0;
      (void)!::write(stop_[1], &stop, 1);
      thread_.join();
    }
    for (int fd : stop_) {
      if (fd >= 0) ::close(fd);
    }
  }
  StandInAfterChild(const StandInAfterChild&) = delete;
  StandInAfterChild& operator=(const StandInAfterChild&) = delete;

 private:
  void Serve(int listen_fd, int child_exit_fd) const {
    if (!WaitReadable(child_exit_fd)) return;
    while (WaitReadable(listen_fd)) {
      const int accepted = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (accepted >= 0) ::close(accepted);
    }
  }
  // Whether `fd` became readable before the stop request.
  bool WaitReadable(int fd) const {
    pollfd fds[2] = {{fd, POLLIN, 0}, {stop_[0], POLLIN, 0}};
    while (::poll(fds, 2, -1) < 0) {
      if (errno != EINTR) return false;
    }
    return fds[1].revents == 0;
  }

  int stop_[2] = {-1, -1};
  std::thread thread_;
};

}  // namespace

Result<LoopbackServer> LoopbackServer::Launch(const BenchParams& params,
                                              const BenchRoles& roles) {
  auto listener = Listener::Bind({"127.0.0.1", params.port}, 1);
  if (!listener.ok()) return listener.status().WithContext("loopback out-of-band port (-p)");
  BenchParams server = params;
  server.role = Role::kServer;
  server.accept_timeout = params.timeout;
  // The silent child reports nothing, so it measures no ceiling either
  // (that would also take memory bandwidth from the parent's).
  server.efficiency = false;
  server.json_path.clear();
  // The child's observer stays quiet: the parent prints the table, and the
  // child's error comes back through Finish, so that it is printed once.
  auto child = ChildProcess::Fork(
      [&] {
        ::signal(SIGINT, SIG_IGN);
        ::signal(SIGTERM, SIG_IGN);
        SilentObserver silent;
        return roles.serve(server, *listener, silent, bench::NeverStopped());
      },
      "loopback server");
  if (!child.ok()) return child.status();
  return LoopbackServer(std::move(*listener), std::move(*child));
}

Status LoopbackServer::RunClient(const BenchParams& params, BenchObserver& observer,
                                 const BenchRoles& roles, const std::atomic<int>& stop) {
  BenchParams client = params;
  client.role = Role::kClient;
  client.server_host = "127.0.0.1";
  client.port = listener_.local_address().port;
  Status status;
  {
    StandInAfterChild stand_in(listener_, child_.exit_fd());
    status = roles.run_client(client, observer, stop);
  }
  listener_.Close();
  return child_.Finish(status, params.timeout);
}

Status RunProcessPair(const BenchParams& params, BenchObserver& observer,
                      const BenchRoles& roles) {
  auto server = LoopbackServer::Launch(params, roles);
  if (!server.ok()) return server.status();
  return server->RunClient(params, observer, roles, bench::NeverStopped());
}

}  // namespace xfer::launch
