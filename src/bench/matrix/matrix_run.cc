#include "bench/matrix/matrix_run.h"

namespace xfer::matrix {

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
