// The forked half of a single-host run (--loopback): the peer role runs in
// a child process, so the two engines really are two processes (shm maps
// the other's memory, tcp crosses the loopback device).
#ifndef XFER_BENCH_CHILD_PROCESS_H_
#define XFER_BENCH_CHILD_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>

#include "common/socket.h"
#include "xfer/status.h"

namespace xfer::bench {

// A forked child whose failure comes back to the parent as a Status, so
// that one process prints one message. Move-only; destroying a child that
// still runs kills and reaps it.
class ChildProcess {
 public:
  // Forks; the child runs `body` and _exits 0 or 1 without returning,
  // printing nothing: its error travels to Reap. Fork before this process
  // starts any thread: the child has only the forking thread. Errors:
  // kIoError when pipe or fork fails.
  static Result<ChildProcess> Fork(const std::function<Status()>& body, std::string label);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  // Readable (at end of file, or with the child's error) once the child
  // has finished: for poll() next to other descriptors.
  int exit_fd() const { return reason_.get(); }

  // Ends the child now (SIGKILL); Reap still collects it.
  void Kill();

  // Reaps the child within `timeout`, killing it if it overstays. OK when
  // it succeeded; otherwise its own error with its label ("loopback
  // server: ..."), kTimeout (killed), or kInternal (it died by a signal).
  Status Reap(std::chrono::milliseconds timeout);

  // Ends a run whose other half ran in this process and returns its root
  // cause. When `parent` failed on its own (anything but kConnectionLost,
  // losing the child), kills the child, whose error would only echo it, and
  // returns `parent`. Otherwise reaps the child within `timeout` and
  // returns the child's error if it failed, else `parent`.
  Status Finish(const Status& parent, std::chrono::milliseconds timeout);

 private:
  ChildProcess(pid_t pid, UniqueFd reason, std::string label)
      : pid_(pid), reason_(std::move(reason)), label_(std::move(label)) {}

  pid_t pid_;
  UniqueFd reason_;  // read end of the pipe the child writes its error to
  std::string label_;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_CHILD_PROCESS_H_
