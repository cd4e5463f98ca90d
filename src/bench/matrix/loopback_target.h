// `xfer matrix --loopback`: the single-host table. The target runs in a
// forked child process on a free port of 127.0.0.1 (never -p, so parallel
// runs cannot collide); the initiator runs in this process.
#ifndef XFER_BENCH_MATRIX_LOOPBACK_TARGET_H_
#define XFER_BENCH_MATRIX_LOOPBACK_TARGET_H_

#include <chrono>
#include <cstdint>

#include "bench/child_process.h"
#include "bench/matrix/host_fingerprint.h"
#include "bench/matrix/matrix_config.h"
#include "xfer/status.h"

namespace xfer::matrix {

class LoopbackTarget {
 public:
  // Binds the control port and forks the target. Call it before this
  // process starts any thread or touches CUDA (a child forked after the
  // driver initialised cannot use it, so the D cells would fail). The child ignores SIGINT (the initiator
  // handles it and tells the child) and prints nothing: Finish returns its
  // error.
  static Result<LoopbackTarget> Launch(const MatrixConfig& config,
                                       const HostFingerprint& fingerprint);

  // The port the initiator connects to on 127.0.0.1.
  uint16_t port() const { return port_; }

  // Ends the run: the root cause of `initiator`'s outcome and the
  // target's (bench::ChildProcess::Finish): the target's own error when
  // the initiator only lost it. Call exactly once.
  Status Finish(const Status& initiator, std::chrono::milliseconds timeout);

 private:
  LoopbackTarget(bench::ChildProcess child, uint16_t port)
      : child_(std::move(child)), port_(port) {}
  bench::ChildProcess child_;
  uint16_t port_;
};

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_LOOPBACK_TARGET_H_
