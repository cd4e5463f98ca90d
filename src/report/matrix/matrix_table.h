// The terminal report of `xfer matrix`: the bandwidth matrix as one table
// per transport (eight directions fit a screen, eight times three do not),
// plus the pieces the Markdown report shares with it so that both say the
// same thing the same way: the method sentence, the cell text and the
// reason notes. Pure functions of the run; thread-safe.
//
//    xfer matrix: GB/s = 10^9 B/s, median of 5 samples after 1 warm-up, 128 MiB per sample
//
//   --- shm (path: shm, 1 stream) ---
//    Block      D2rD      D2rH      H2rH  ...
//      16K       n/a       n/a     5.213  ...
//    n/a  D2rD D2rH H2rD rD2D rH2D rD2H: device memory: this build of ...
//
// Every ok cell prints with three decimals, none stripped (HIXL's seed
// mixes "7.180" and "31.97", matrix.md §5.8); a path that cannot run, a
// cell that failed and a cell never reached print differently (§5.6).
#ifndef XFER_REPORT_MATRIX_MATRIX_TABLE_H_
#define XFER_REPORT_MATRIX_MATRIX_TABLE_H_

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench/matrix/matrix_run.h"

namespace xfer::report {

// Every line ends in '\n': the heading, then per transport of
// run.transports a blank line, its heading, its table and its notes (and
// with config.efficiency its cells as percentages of their ceilings); the
// local copy anchors (anchor_table.h) when the run has them; then
// one "not usable here" line per skipped transport, with config.verify the
// verification count, and when the run failed or was interrupted its
// outcome and error. A grid smaller than the config says (a bug upstream)
// prints its missing cells as not run rather than reading past the end.
std::string RenderMatrixTables(const matrix::MatrixRun& run);

// "median of 5 samples after 1 warm-up, 128 MiB per sample" (+ " in 4
// requests" when batch > 1): how each cell was measured (matrix.md §11.1-3).
std::string MethodText(const matrix::MatrixConfig& config);

// "128 MiB", "4 KiB", "1000 bytes": exact, in the largest binary unit that
// divides `bytes`.
std::string SizeText(uint64_t bytes);

// An ok cell's median as "%.3f"; "n/a" (unsupported), "failed", or
// `not_run` for a cell never reached.
std::string CellText(const matrix::CellResult& cell, std::string_view not_run);

// run.cells[run.CellIndex(transport, direction, block)], or nullptr when
// the grid is shorter than that.
const matrix::CellResult* CellAt(const matrix::MatrixRun& run, size_t transport, size_t direction,
                                 size_t block);

// "path: shm, 1 stream": the path every ok cell of run.transports[transport]
// reported (matrix.md §11.7), each distinct path once ("paths: tcp, 1
// stream; shm, 2 streams"), then ", staged through pinned host memory" for
// a run with --device_path staged; "path: not measured" when no cell of it
// is ok.
std::string PathText(const matrix::MatrixRun& run, size_t transport);

// "verify: 40 of 40 measured cells verified byte for byte", then
// "; did not match: tcp H2rH 2M, ..." naming each ok cell whose bytes did
// not all land. Meaningful only with config.verify.
std::string VerifyText(const matrix::MatrixRun& run);

// One distinct n/a or failure reason and the columns it applies to.
struct CellNote {
  matrix::CellStatus status = matrix::CellStatus::kUnsupported;  // or kFailed
  std::string reason;  // on one line; "no reason given" when the cell had none
  // In config.directions order, one item per direction the reason covers:
  // "D2rD" when it covers every block of every transport in scope; else
  // "rH2H tcp" (a whole column; the transport only when the scope has
  // several) or "rH2H@64K,2M" (some blocks of it).
  std::vector<std::string> where;
};

// The notes of the cells of the transports `scope` (indices into
// run.transports): the n/a notes, then the failed ones, each in the order
// the grid first meets its reason.
std::vector<CellNote> CellNotes(const matrix::MatrixRun& run, std::span<const size_t> scope);

}  // namespace xfer::report

#endif  // XFER_REPORT_MATRIX_MATRIX_TABLE_H_
