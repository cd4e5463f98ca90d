// Runs the real `xfer` binary as a child process with captured output, for
// end-to-end tests over loopback.
#ifndef XFER_TESTS_E2E_PROCESS_H_
#define XFER_TESTS_E2E_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <initializer_list>
#include <string>
#include <vector>

namespace xfer::testing {

struct ProcessResult {
  int exit_code = -1;      // -1: killed by a signal or by the timeout
  bool timed_out = false;
  std::string out;         // stdout
  std::string err;         // stderr
};

class Process {
 public:
  // Starts `XFER_BINARY args...`; output goes to temporary files.
  explicit Process(const std::vector<std::string>& args);
  // Starts `program args...` likewise (program: a path, or a name on PATH).
  // The child leads its own process group, so that Kill() also ends what it
  // started (a browser's renderers, a loopback run's server).
  Process(const std::string& program, const std::vector<std::string>& args);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  // Waits up to `timeout`; kills the process if it is still running.
  ProcessResult Wait(std::chrono::milliseconds timeout);
  void Kill();
  pid_t pid() const { return pid_; }
  // What the process has written to stdout so far.
  std::string OutputSoFar() const;

 private:
  pid_t pid_ = -1;
  std::string out_path_;
  std::string err_path_;
};

// Runs to completion (or `timeout`).
ProcessResult RunXfer(const std::vector<std::string>& args,
                      std::chrono::milliseconds timeout = std::chrono::seconds(60));

// Runs `program args...` to completion (or `timeout`).
ProcessResult RunProgram(const std::string& program, const std::vector<std::string>& args,
                         std::chrono::milliseconds timeout);

// A TCP port nobody listens on right now (bind to 0, read it, close).
int FreePort();

// True when the kernel registers an RDMA (uverbs) device: without
// /dev/infiniband/uverbs* libibverbs can list nothing. Checked independently
// of xfer so that a wrong "exit 0" cannot turn into a skip.
bool HostHasRdmaDevices();

// Connects to 127.0.0.1:port as something that is not an xfer peer (retrying
// for up to 2 s while the server starts), sends `bytes` and closes. True
// once the bytes were sent.
bool SendStray(int port, const std::string& bytes);

// `args` with `more` appended: one command line built from a shared part.
inline std::vector<std::string> With(std::vector<std::string> args,
                                     std::initializer_list<std::string> more) {
  args.insert(args.end(), more);
  return args;
}

}  // namespace xfer::testing

#endif  // XFER_TESTS_E2E_PROCESS_H_
