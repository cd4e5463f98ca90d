// The initiator of `xfer matrix`: connects to a target, measures every cell
// of the grid over libxfer's public Engine API only, and reports through a
// MatrixObserver as it goes.
#ifndef XFER_BENCH_MATRIX_MATRIX_INITIATOR_H_
#define XFER_BENCH_MATRIX_MATRIX_INITIATOR_H_

#include <atomic>

#include "bench/matrix/host_fingerprint.h"
#include "bench/matrix/matrix_config.h"
#include "bench/matrix/matrix_observer.h"
#include "xfer/status.h"

namespace xfer::matrix {

// Runs the matrix against the target at config.host:config.port.
//
// Cell order: transport, then direction, then block size. Each transport
// gets its own engine connection, forced to that transport; a connection
// that reports another transport than the one asked for is an error, never
// a silent fallback. A transport of the default set the pair cannot use
// (Connect says kNotSupported or kFailedPrecondition) is skipped with its
// reason; one named in config.transports keeps its column, n/a.
//
// The first failed cell stops the run: that cell is kFailed, later ones
// kNotRun, and the target is told why. `stop` is polled between samples; a
// non-zero value (the signal number) stops the run as kInterrupted. The
// observer always gets OnFinish once the grid was planned.
//
// Errors: kInvalidArgument (the target refused the matrix: the message
// names the flag), the control connection's errors, and the failed cell's
// error, prefixed with the cell ("tcp H2rH 16K: ...").
Status RunMatrixInitiator(const MatrixConfig& config, const HostFingerprint& local,
                          MatrixObserver& observer, const std::atomic<int>& stop);

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_MATRIX_INITIATOR_H_
