// The --csv FILE report of `xfer matrix`: one header line, then one row per
// cell of the grid, not-run cells included, in run order (transport, then
// direction, then block size). Unlike HIXL's CSV (matrix.md §4-5) every row
// says what it is (status, reason), how it was measured (entries,
// requests, samples, warm-ups, the path that ran) and its units are in the
// column names. Columns:
//
//   direction,op,initiator_memory,target_memory,transport,block_size_bytes,
//   block_label,transfer_size_bytes,entries_per_sample,requests,
//   path_transport,path_streams,status,median_GB_per_s,min_GB_per_s,
//   max_GB_per_s,samples,warmup_samples,verified,reason
//
// GB = 10^9 bytes, printed with 6 decimals. A field that does not apply is
// empty: the path when none was reported, GB/s unless status is "ok",
// sample counts for cells that did not run (unsupported, not run),
// verified unless checked ("true"/"false"). status is "ok",
// "unsupported", "failed" or "not run". Fields holding a comma, quote, CR
// or LF are quoted per RFC 4180; lines end in LF. A pure function of the
// run; thread-safe.
#ifndef XFER_REPORT_MATRIX_MATRIX_CSV_H_
#define XFER_REPORT_MATRIX_MATRIX_CSV_H_

#include <string>
#include <string_view>

#include "bench/matrix/matrix_run.h"

namespace xfer::report {

std::string RenderMatrixCsv(const matrix::MatrixRun& run);

// The header line above (without its LF), and one cell's row (with its
// LF), for files that prefix the matrix's columns with their own (the
// cluster matrix's CSV).
std::string_view MatrixCsvHeader();
std::string MatrixCsvRow(const matrix::CellResult& cell, uint64_t transfer_size);

// `field` as one RFC 4180 field: as is, or in double quotes with each quote
// doubled when it holds a comma, quote, CR or LF.
std::string CsvField(std::string_view field);

}  // namespace xfer::report

#endif  // XFER_REPORT_MATRIX_MATRIX_CSV_H_
