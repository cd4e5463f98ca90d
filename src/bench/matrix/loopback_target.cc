#include "bench/matrix/loopback_target.h"

#include <signal.h>

#include "bench/matrix/matrix_target.h"
#include "common/socket.h"

namespace xfer::matrix {

Result<LoopbackTarget> LoopbackTarget::Launch(const MatrixConfig& config,
                                              const HostFingerprint& fingerprint) {
  // config.port: -p, or 0 for a free one.
  auto listener = Listener::Bind({"127.0.0.1", config.port}, 1);
  if (!listener.ok()) return listener.status().WithContext("loopback control port");
  const uint16_t port = listener->local_address().port;
  MatrixConfig target = config;
  target.role = Role::kTarget;
  target.accept_timeout = config.timeout;
  auto child = bench::ChildProcess::Fork(
      [&] {
        signal(SIGINT, SIG_IGN);
        return RunMatrixTarget(target, fingerprint, *listener, [](const std::string&) {});
      },
      "loopback target");
  if (!child.ok()) return child.status();
  listener->Close();
  return LoopbackTarget(std::move(*child), port);
}

Status LoopbackTarget::Finish(const Status& initiator, std::chrono::milliseconds timeout) {
  return child_.Finish(initiator, timeout);
}

}  // namespace xfer::matrix
