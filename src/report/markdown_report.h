// `xfer report --markdown`: the report's tables (report/run_tables.h) as
// Markdown, for pasting into a write-up like the seeds. Per run: a heading
// with the file name, its kind, the command line in a code span when the
// file has one, then the tables with a caption line each. Text from the
// file is escaped so that it cannot end a cell. Every line ends in '\n'.
// Pure; thread-safe.
#ifndef XFER_REPORT_MARKDOWN_REPORT_H_
#define XFER_REPORT_MARKDOWN_REPORT_H_

#include <span>
#include <string>

#include "report/run_document.h"

namespace xfer::report {

std::string RenderMarkdownReport(std::span<const RunDocument> runs);

}  // namespace xfer::report

#endif  // XFER_REPORT_MARKDOWN_REPORT_H_
