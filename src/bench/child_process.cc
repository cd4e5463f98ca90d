#include "bench/child_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/socket.h"

namespace xfer::bench {

Result<pid_t> ForkChild(const std::function<Status()>& body, const std::string& label) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t child = fork();
  if (child < 0) return IoError(ErrnoMessage("fork", errno));
  if (child > 0) return child;
  const Status status = body();
  if (!status.ok()) std::fprintf(stderr, "xfer: %s: %s\n", label.c_str(), status.ToString().c_str());
  std::fflush(stderr);
  _exit(status.ok() ? 0 : 1);
}

Status ReapChild(pid_t child, std::chrono::milliseconds timeout, const std::string& label) {
  const Deadline deadline = Deadline::After(timeout);
  int wstatus = 0;
  for (;;) {
    const pid_t done = waitpid(child, &wstatus, WNOHANG);
    if (done == child) break;
    if (done < 0) return IoError(ErrnoMessage("waitpid", errno));
    if (deadline.expired()) {
      kill(child, SIGKILL);
      waitpid(child, &wstatus, 0);
      return Timeout(fmt::format("{} did not exit in time; killed it", label));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) return Status::Ok();
  if (WIFSIGNALED(wstatus)) {
    return Internal(fmt::format("{} died with signal {}", label, WTERMSIG(wstatus)));
  }
  return Internal(fmt::format("{} failed (see its message above)", label));
}

}  // namespace xfer::bench
