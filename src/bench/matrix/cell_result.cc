#include "bench/matrix/cell_result.h"

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

}  // namespace xfer::matrix
