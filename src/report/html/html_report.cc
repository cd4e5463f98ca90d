#include "report/html/html_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/html/html_escape.h"
#include "report/html/run_plots.h"
#include "report/html/svg_plot.h"
#include "report/run_tables.h"

namespace xfer::report {
namespace {

// Plots flow two to a row where the window is wide enough for two.
constexpr const char* kStyle = R"(body{font-family:sans-serif;margin:24px;color:#222;max-width:1600px}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;padding-bottom:4px}
table{border-collapse:collapse;margin:8px 0 16px 0;font-size:0.9em}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f2f2f2}table.fingerprint td{text-align:left}
caption{text-align:left;font-weight:bold;padding:4px 0}
pre.command-line{background:#f6f6f6;padding:6px;white-space:pre-wrap;word-break:break-all}
div.plot-grid{display:flex;flex-wrap:wrap;gap:0 32px}
svg.plot{display:block;margin:12px 0;font-size:12px}
svg.plot .title{font-size:14px;font-weight:bold}
)";

// A header cell's "<br>" is the one markup it may carry; the rest is text.
std::string HeaderText(const std::string& header) {
  std::string out;
  size_t start = 0;
  for (size_t br; (br = header.find("<br>", start)) != std::string::npos; start = br + 4) {
    out += HtmlEscape(header.substr(start, br - start)) + "<br>";
  }
  return out + HtmlEscape(header.substr(start));
}

// White at 0, deep blue at the table's largest median.
std::string HeatStyle(double value, double max) {
  const double f = max > 0 ? std::clamp(value / max, 0.0, 1.0) : 0;
  const int lightness = static_cast<int>(std::lround(96 - f * 52));
  return fmt::format(" style=\"background:hsl(210,70%,{}%);color:{}\"", lightness,
                     lightness < 60 ? "#fff" : "#000");
}

std::string Table(const RunTable& table) {
  double max = 0;
  for (const auto& row : table.rows) {
    for (const TableCell& cell : row) max = std::max(max, cell.heat.value_or(0));
  }
  std::string out = fmt::format("<table class=\"{}\">\n<caption>{}</caption>\n<tr>",
                                table.heat ? "matrix" : "results", HtmlEscape(table.caption));
  for (const std::string& header : table.header) out += "<th>" + HeaderText(header) + "</th>";
  out += "</tr>\n";
  for (const auto& row : table.rows) {
    out += "<tr>";
    for (const TableCell& cell : row) {
      const std::string style = table.heat && cell.heat ? HeatStyle(*cell.heat, max) : "";
      out += fmt::format("<td{}>{}</td>", style, HtmlEscape(cell.text));
    }
    out += "</tr>\n";
  }
  out += "</table>\n";
  if (table.notes.empty()) return out;
  out += "<ul class=\"notes\">\n";
  for (const std::string& note : table.notes) out += "<li>" + HtmlEscape(note) + "</li>\n";
  return out + "</ul>\n";
}

std::string Fingerprint(const RunDocument& run) {
  if (run.fingerprint.empty()) return "<p class=\"fingerprint\">No host fingerprint in this file.</p>\n";
  std::string out = "<table class=\"fingerprint\">\n<caption>host fingerprint</caption>\n";
  for (const auto& [key, value] : run.fingerprint) {
    out += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", HtmlEscape(key), HtmlEscape(value));
  }
  return out + "</table>\n";
}

std::string RunSection(const RunDocument& run) {
  std::string what = std::string(RunKindName(run.kind));
  if (run.kind != RunKind::kMatrix) {
    what = fmt::format("{} {}{}", what, run.test,
                       run.transport.empty() ? "" : fmt::format(" over {}", run.transport));
  }
  std::string out = fmt::format("<section class=\"run\" data-file=\"{0}\">\n<h2>{0}</h2>\n<p>{1}</p>\n",
                                HtmlEscape(run.name), HtmlEscape(what));
  out += run.command_line.empty()
             ? "<p class=\"command-line\">No command line in this file.</p>\n"
             : fmt::format("<pre class=\"command-line\">{}</pre>\n", HtmlEscape(run.command_line));
  if (const std::string note = IncompleteNote(run); !note.empty()) {
    out += fmt::format("<p class=\"incomplete\"><strong>{}</strong></p>\n", HtmlEscape(note));
  }
  out += Fingerprint(run);
  for (const RunTable& table : RunTables(run)) out += Table(table);
  return out + "</section>\n";
}

}  // namespace

std::string RenderHtmlReport(std::span<const RunDocument> runs) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>xfer report</title>\n<style>\n";
  out += kStyle;
  out += "</style>\n</head>\n<body>\n<h1>xfer report</h1>\n<ul class=\"files\">\n";
  for (const RunDocument& run : runs) {
    out += fmt::format("<li>{}: {}</li>\n", HtmlEscape(run.name), RunKindName(run.kind));
  }
  out += "</ul>\n<p>GB/s = 10^9 bytes/s, Gb/s = 10^9 bit/s, MiB/s = 2^20 bytes/s. Dashed lines: the "
         "ceiling the run recorded for its path, where it knew one.</p>\n";
  out += "<section class=\"plots\">\n<h2>Plots</h2>\n<div class=\"plot-grid\">\n";
  for (const PlotSpec& plot : RunPlots(runs)) out += RenderSvgPlot(plot);
  out += "</div>\n</section>\n";
  for (const RunDocument& run : runs) out += RunSection(run);
  return out + "</body>\n</html>\n";
}

}  // namespace xfer::report
