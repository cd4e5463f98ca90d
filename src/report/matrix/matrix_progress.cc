#include "report/matrix/matrix_progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bench/matrix/block_size.h"

namespace xfer::report {
namespace {

std::string TimeLeft(double seconds) {
  if (seconds < 99.5) return fmt::format("~{:.0f} s left", seconds);
  if (seconds < 99.5 * 60) return fmt::format("~{:.0f} min left", seconds / 60);
  return fmt::format("~{:.1f} h left", seconds / 3600);
}

}  // namespace

std::string ProgressLine(const matrix::MatrixRun& run, size_t cell, uint32_t done, uint32_t total,
                         double elapsed_s) {
  size_t runnable = 0;
  size_t before = 0;  // runnable cells ahead of `cell` in run order: finished
  for (size_t i = 0; i < run.cells.size(); ++i) {
    if (run.cells[i].status == matrix::CellStatus::kUnsupported) continue;
    ++runnable;
    if (i < cell) ++before;
  }
  const size_t width = fmt::format("{}", runnable).size();
  if (cell >= run.cells.size()) {
    return fmt::format("[{:>{}}/{}] sample {}/{}", "?", width, runnable, done, total);
  }
  const matrix::CellResult& current = run.cells[cell];
  std::string line = fmt::format("[{:>{}}/{}] {} {} {} sample {}/{}", before + 1, width, runnable,
                                 current.transport, current.direction.Name(),
                                 matrix::BlockLabel(current.block_size), done, total);
  const double share = total > 0 ? std::min(1.0, static_cast<double>(done) / total) : 0.0;
  const double fraction =
      runnable > 0 ? (static_cast<double>(before) + share) / static_cast<double>(runnable) : 0.0;
  if (fraction > 0 && elapsed_s > 0 && std::isfinite(elapsed_s)) {
    line += ", " + TimeLeft(elapsed_s * (1 - std::min(fraction, 1.0)) / fraction);
  }
  return line;
}

}  // namespace xfer::report
