#include "bench/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include "common/clock.h"

namespace xfer::bench {
namespace {

// The most of a child's error the parent keeps.
constexpr size_t kMaxReason = 4096;

void WriteAll(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// What the child wrote before it exited (its pipe is at end of file then).
std::string ReadReason(int fd) {
  std::string reason;
  char chunk[512];
  while (reason.size() < kMaxReason) {
    const ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reason.append(chunk, static_cast<size_t>(n));
  }
  return reason;
}

}  // namespace

Result<ChildProcess> ChildProcess::Fork(const std::function<Status()>& body, std::string label) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return IoError(ErrnoMessage("pipe2", errno));
  UniqueFd read_end(fds[0]);
  UniqueFd write_end(fds[1]);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  const pid_t pid = fork();
  if (pid < 0) return IoError(ErrnoMessage("fork", errno));
  if (pid == 0) {
    // Never outlives its parent: a parent ended by a second Ctrl-C or
    // SIGKILL takes the child with it (checked after asking, in case the
    // parent died before).
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) _exit(1);
    read_end.reset();
    const Status status = body();
    // The code's byte, then the message.
    if (!status.ok()) {
      WriteAll(write_end.get(), std::string(1, static_cast<char>(status.code())) + status.message());
    }
    std::fflush(stdout);
    _exit(status.ok() ? 0 : 1);
  }
  return ChildProcess(pid, std::move(read_end), std::move(label));
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_), reason_(std::move(other.reason_)), label_(std::move(other.label_)) {
  other.pid_ = -1;
}

ChildProcess::~ChildProcess() {
  if (pid_ <= 0) return;
  Kill();
  int wstatus = 0;
  (void)waitpid(pid_, &wstatus, 0);
}

void ChildProcess::Kill() {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
}

Status ChildProcess::Reap(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return Internal(fmt::format("{}: reaped twice", label_));
  const Deadline deadline = Deadline::After(timeout);
  int wstatus = 0;
  bool killed = false;
  for (;;) {
    const pid_t done = waitpid(pid_, &wstatus, WNOHANG);
    if (done == pid_) break;
    if (done < 0) return IoError(ErrnoMessage("waitpid", errno));
    if (deadline.expired() && !killed) {
      Kill();
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  pid_ = -1;
  if (killed) return Timeout(fmt::format("{} did not exit in time; killed it", label_));
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) return Status::Ok();
  if (WIFSIGNALED(wstatus)) {
    return Internal(fmt::format("{} died with signal {}", label_, WTERMSIG(wstatus)));
  }
  const std::string reason = ReadReason(reason_.get());
  const auto code = reason.empty() ? StatusCode::kInternal : static_cast<StatusCode>(reason[0]);
  if (code == StatusCode::kOk || code > StatusCode::kInternal) {  // not a code: a broken pipe
    return Internal(fmt::format("{} failed", label_));
  }
  return Status(code, reason.substr(1)).WithContext(label_);
}

Status ChildProcess::Finish(const Status& parent, std::chrono::milliseconds timeout) {
  if (!parent.ok() && parent.code() != StatusCode::kConnectionLost) {
    Kill();
    (void)Reap(timeout);
    return parent;
  }
  Status child = Reap(timeout);
  return child.ok() ? parent : child;
}

}  // namespace xfer::bench
