// How a matrix run reports as it goes: the initiator calls a
// MatrixObserver, report/matrix/matrix_reporter.h implements it with the
// tables, files and progress line. Keeps bench free of output formats.
#ifndef XFER_BENCH_MATRIX_MATRIX_OBSERVER_H_
#define XFER_BENCH_MATRIX_MATRIX_OBSERVER_H_

#include <cstddef>
#include <cstdint>

#include "bench/matrix/matrix_run.h"

namespace xfer::matrix {

// Called from the initiator's thread only, in this order: OnPlan once,
// then per cell OnSample zero or more times and OnCellDone once, then
// OnFinish once (also after a failure, with run.outcome set). `run` is the
// current state; references are valid only during the call.
class MatrixObserver {
 public:
  virtual ~MatrixObserver() = default;
  // The grid is known: transports resolved, fingerprints exchanged, every
  // cell kNotRun or kUnsupported.
  virtual void OnPlan(const MatrixRun& run) = 0;
  // Sample `done` of `total` (warm-ups included) of cell `cell` finished.
  virtual void OnSample(const MatrixRun& run, size_t cell, uint32_t done, uint32_t total) = 0;
  // run.cells[cell] is final.
  virtual void OnCellDone(const MatrixRun& run, size_t cell) = 0;
  virtual void OnFinish(const MatrixRun& run) = 0;
};

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_MATRIX_OBSERVER_H_
