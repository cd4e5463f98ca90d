// Text from a run made safe inside one Markdown table cell: on one line,
// with the characters that would end the cell or start HTML escaped.
#ifndef XFER_REPORT_MARKDOWN_ESCAPE_H_
#define XFER_REPORT_MARKDOWN_ESCAPE_H_

#include <string>
#include <string_view>

namespace xfer::report {

inline std::string MarkdownEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (c == '|') {
      out += "\\|";
    } else if (c == '<') {
      out += "&lt;";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace xfer::report

#endif  // XFER_REPORT_MARKDOWN_ESCAPE_H_
