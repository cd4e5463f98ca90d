// The --markdown FILE report of `xfer matrix`: the seed's layout
// (../shared/seeds/003_*.txt, matrix.md §10), one table with a row per
// block size and a column per direction x transport, direction-major:
//
//   | Block | D2rD<br>shm | D2rD<br>tcp | D2rH<br>shm | ... |
//   | ---: | ---: | ---: | ---: | ... |
//   | 16K | n/a | n/a | n/a | ... |
//
// Above it, one line naming the hosts and "how to read" lines stating the
// unit, the bytes per sample, the block labels' binary units, the samples,
// the warm-up and the statistic; below it, every n/a and failure reason,
// each transport the host pair cannot use, the verification count and an
// unfinished run's outcome. Cells print as the terminal table's do
// (report/matrix/matrix_table.h), with "—" for a cell not run. Text taken
// from the run (reasons, names) is escaped so that it cannot break the
// table. A pure function of the run; thread-safe.
#ifndef XFER_REPORT_MATRIX_MATRIX_MARKDOWN_H_
#define XFER_REPORT_MATRIX_MATRIX_MARKDOWN_H_

#include <string>

#include "bench/matrix/matrix_run.h"

namespace xfer::report {

// The whole document; every line ends in '\n'.
std::string RenderMatrixMarkdown(const matrix::MatrixRun& run);

}  // namespace xfer::report

#endif  // XFER_REPORT_MATRIX_MATRIX_MARKDOWN_H_
