// The plots of `xfer report` (see report/html/html_report.h for which runs
// share axes), as plot specifications for report/html/svg_plot.h. Pure;
// thread-safe.
#ifndef XFER_REPORT_HTML_RUN_PLOTS_H_
#define XFER_REPORT_HTML_RUN_PLOTS_H_

#include <span>
#include <vector>

#include "report/html/svg_plot.h"
#include "report/run_document.h"

namespace xfer::report {

// Every plot for `runs`, in the order the first run of each group appears.
std::vector<PlotSpec> RunPlots(std::span<const RunDocument> runs);

}  // namespace xfer::report

#endif  // XFER_REPORT_HTML_RUN_PLOTS_H_
