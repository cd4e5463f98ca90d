// Text from a run file made safe inside HTML/SVG text and attribute values.
#ifndef XFER_REPORT_HTML_HTML_ESCAPE_H_
#define XFER_REPORT_HTML_HTML_ESCAPE_H_

#include <string>
#include <string_view>

namespace xfer::report {

inline std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace xfer::report

#endif  // XFER_REPORT_HTML_HTML_ESCAPE_H_
