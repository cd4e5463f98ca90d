#include "report/markdown_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/markdown_escape.h"
#include "report/run_tables.h"

namespace xfer::report {
namespace {


// Headers keep their "<br>" (the seed's two-line column names).
std::string MarkdownHeaderText(const std::string& header) {
  std::string out;
  size_t start = 0;
  for (size_t br; (br = header.find("<br>", start)) != std::string::npos; start = br + 4) {
    out += MarkdownEscape(header.substr(start, br - start)) + "<br>";
  }
  return out + MarkdownEscape(header.substr(start));
}

// A code span that the text cannot close: fenced by more backticks than it
// has, and padded with a space only where the text starts or ends with one
// (CommonMark strips one space from each side of such a span).
std::string CodeSpan(const std::string& text) {
  size_t longest = 0;
  size_t run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  std::string one_line;
  for (char c : text) one_line += (c == '\n' || c == '\r') ? ' ' : c;
  const bool pad = !one_line.empty() && (one_line.front() == '`' || one_line.back() == '`');
  return fmt::format("{0}{2}{1}{2}{0}", fence, one_line, pad ? " " : "");
}

std::string MarkdownTable(const RunTable& table) {
  std::string text = fmt::format("{}:\n\n|", MarkdownEscape(table.caption));
  std::string align = "|";
  for (const std::string& header : table.header) {
    text += fmt::format(" {} |", MarkdownHeaderText(header));
    align += " ---: |";
  }
  text += "\n" + align + "\n";
  for (const auto& row : table.rows) {
    text += "|";
    for (const TableCell& cell : row) text += fmt::format(" {} |", MarkdownEscape(cell.text));
    text += "\n";
  }
  if (!table.notes.empty()) text += "\n";
  for (const std::string& note : table.notes) text += fmt::format("- {}\n", MarkdownEscape(note));
  return text;
}

}  // namespace

std::string RenderMarkdownReport(std::span<const RunDocument> runs) {
  std::string text;
  for (const RunDocument& run : runs) {
    if (!text.empty()) text += "\n";
    text += fmt::format("## {} ({})\n\n", MarkdownEscape(run.name), RunKindName(run.kind));
    if (!run.command_line.empty()) text += fmt::format("Command: {}\n\n", CodeSpan(run.command_line));
    if (const std::string note = IncompleteNote(run); !note.empty()) {
      text += fmt::format("**{}**\n\n", MarkdownEscape(note));
    }
    bool first = true;
    for (const RunTable& table : RunTables(run)) {
      if (!first) text += "\n";
      first = false;
      text += MarkdownTable(table);
    }
  }
  return text;
}

}  // namespace xfer::report
