#include "bench/matrix/cell_result.h"

#include "bench/matrix/matrix_run.h"

namespace xfer::matrix {

const char* CellStatusName(CellStatus status) {
  switch (status) {
    case CellStatus::kOk: return "ok";
    case CellStatus::kUnsupported: return "unsupported";
    case CellStatus::kFailed: return "failed";
    case CellStatus::kNotRun: return "not run";
  }
  return "?";
}

const char* RunOutcomeName(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::kRunning: return "running";
    case RunOutcome::kComplete: return "complete";
    case RunOutcome::kFailed: return "failed";
    case RunOutcome::kInterrupted: return "interrupted";
  }
  return "?";
}

}  // namespace xfer::matrix
