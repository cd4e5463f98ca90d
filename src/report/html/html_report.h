// `xfer report`'s HTML page: one self-contained file (inline CSS and SVG,
// no script, no link, no fetch) describing one or more runs.
//
// Layout: first the plots (report/html/svg_plot.h), where runs of the same
// kind share axes and each legend entry starts with the file name:
//  * bandwidth tests with the same test and unit: BW average and message
//    rate against message size, plus a dashed ceiling per run where its
//    rows know bytes_per_sec, and the efficiency (% of that ceiling) when
//    any row recorded one;
//  * latency tests with the same test: t_min, t_typical, t_avg, p99 and
//    p99.9 per run (t_avg only for duration-mode runs);
//  * matrices: one plot per transport, GB/s against block size, a line per
//    run x direction, and a dashed ceiling per run x direction where known;
//    then that transport's efficiency per run x direction when recorded.
// Then, for each run, a <section class="run"> with its file name, kind,
// command line (<pre class="command-line">) and fingerprint
// (<table class="fingerprint">) when the file has them, and its tables
// (report/run_tables.h) as <table class="results"> or, for a matrix,
// <table class="matrix"> with heat-coloured cells, each followed by its
// notes (<ul class="notes">).
// Pure; thread-safe.
#ifndef XFER_REPORT_HTML_HTML_REPORT_H_
#define XFER_REPORT_HTML_HTML_REPORT_H_

#include <span>
#include <string>

#include "report/run_document.h"

namespace xfer::report {

std::string RenderHtmlReport(std::span<const RunDocument> runs);

}  // namespace xfer::report

#endif  // XFER_REPORT_HTML_HTML_REPORT_H_
