// The one-line progress report of a running `xfer matrix`, e.g.
//
//   [ 7/48] tcp H2rH 256K sample 3/6, ~42 s left
//
// Cells are counted over the runnable ones (every status but unsupported:
// a path that cannot run costs no time), in run order. The time left
// assumes the rest of the run goes as fast as what is done: elapsed x
// (1 - f) / f, f being the runnable cells finished plus this cell's share
// of samples, over all runnable cells. A pure function: the caller owns
// the clock and the terminal.
#ifndef XFER_REPORT_MATRIX_MATRIX_PROGRESS_H_
#define XFER_REPORT_MATRIX_MATRIX_PROGRESS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "bench/matrix/matrix_run.h"

namespace xfer::report {

// The line for sample `done` of `total` (warm-ups included, as
// MatrixObserver::OnSample counts them) of run.cells[cell], `elapsed_s`
// seconds into the measurement. No '\r' or newline. The estimate is left
// out until some sample finished (f = 0) and while no time has passed
// (elapsed_s <= 0); under 100 s it prints in seconds, under 100 min in
// minutes, else in hours. A `cell` outside the grid prints "[?/N]" and no
// cell name.
std::string ProgressLine(const matrix::MatrixRun& run, size_t cell, uint32_t done, uint32_t total,
                         double elapsed_s);

}  // namespace xfer::report

#endif  // XFER_REPORT_MATRIX_MATRIX_PROGRESS_H_
