// The target of `xfer matrix`: registers the memory the initiator moves
// data into and out of, lets its engine serve every connection, and answers
// --verify's requests on the control connection. Serves one initiator.
#ifndef XFER_BENCH_MATRIX_MATRIX_TARGET_H_
#define XFER_BENCH_MATRIX_MATRIX_TARGET_H_

#include <functional>
#include <string>

#include "bench/matrix/host_fingerprint.h"
#include "bench/matrix/matrix_config.h"
#include "common/socket.h"
#include "xfer/status.h"

namespace xfer::matrix {

// Accepts initiators on `listener` until one asks for the same matrix as
// `config` and connects its engine, within config.accept_timeout in all;
// allocates one buffer per placement the agreed directions need on this
// side, then serves until the initiator says Done. An initiator that asks
// for another matrix (refused, naming the flag), gives up before its first
// request (its engine was refused: another secret), hangs up or goes
// silent is turned away with a line on stderr, and the target waits for
// the next. `notice` gets the lines a user watching the target should see
// ("waiting for an initiator..."). Errors: kTimeout (no initiator served in
// time, or it went silent for config.timeout while served),
// kConnectionLost (the served initiator died or aborted, with its reason),
// kProtocolError, allocation errors.
Status RunMatrixTarget(const MatrixConfig& config, const HostFingerprint& local, Listener& listener,
                       const std::function<void(const std::string&)>& notice);

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_MATRIX_TARGET_H_
