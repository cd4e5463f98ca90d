// The tables of a run, as text cells, shared by the HTML report and the
// Markdown export so that both print the same figures.
//
//  * bandwidth test: #bytes, BW peak, BW average (the unit the file states),
//    MsgRate [Mpps], then ceiling and efficiency when any row has them;
//  * latency test: #bytes, t_min, t_typical, t_avg, 99%, 99.9% [usec]
//    (duration-mode runs: t_avg only), then efficiency columns likewise;
//  * matrix: the seed's layout (report/matrix/matrix_markdown.h), a row per
//    block size and a column per direction x transport, direction-major,
//    median GB/s; each cell carries its value for heat colouring. A cell
//    the file does not hold prints "—"; one that could not run, "n/a"; one
//    that failed, "failed"; their reasons are notes, one per reason.
//    When any cell has an efficiency, a second table gives them likewise.
//  * cluster matrix: a heat map per direction and block, a row per source
//    rank ("r2 (host)") and a column per target rank, median GB/s coloured
//    by value, "—" where the pair did not run.
// A ceiling's source is a note, not a cell: one "Ceiling: ..." line when
// the whole table has one source, else "[n] ..." lines that the cells cite.
// Figures the file lacks print "unknown", never a guess. Pure; thread-safe.
#ifndef XFER_REPORT_RUN_TABLES_H_
#define XFER_REPORT_RUN_TABLES_H_

#include <optional>
#include <string>
#include <vector>

#include "report/run_document.h"

namespace xfer::report {

struct TableCell {
  std::string text;
  std::optional<double> heat;  // matrix medians: the value to colour by
};

struct RunTable {
  std::string caption;
  std::vector<std::string> header;  // may contain "<br>" between two words
  std::vector<std::vector<TableCell>> rows;
  bool heat = false;  // colour the cells by TableCell::heat
  std::vector<std::string> notes;  // lines to print under the table, as text
};

std::vector<RunTable> RunTables(const RunDocument& run);

// "70.0 %" of a fraction; "unknown" without one.
std::string EfficiencyText(const std::optional<double>& fraction);

}  // namespace xfer::report

#endif  // XFER_REPORT_RUN_TABLES_H_
