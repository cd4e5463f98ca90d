// libFuzzer target for the files `xfer report` and `xfer compare` read: any
// bytes must either parse into a run that every renderer accepts, or be
// refused with an error that names the file and the problem. A crash, a
// sanitizer report, or a refusal without that shape is a finding.
//
// Built only with -DXFER_FUZZ=ON and clang (scripts/fuzz.sh).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "report/compare.h"
#include "report/html/html_report.h"
#include "report/markdown_report.h"
#include "report/run_document.h"

namespace {

constexpr std::string_view kName = "fuzz.json";

[[noreturn]] void Finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "run_document_fuzzer: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace xfer::report;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto run = ParseRunDocument(kName, text);
  if (!run.ok()) {
    const std::string message = run.status().message();
    if (!message.starts_with(std::string(kName) + ": ") || message.size() <= kName.size() + 2) {
      Finding("a refusal that does not name the file and the problem", message);
    }
    return 0;
  }
  const std::vector<RunDocument> runs = {*run, *run};
  if (RenderHtmlReport(runs).find("</html>") == std::string::npos) {
    Finding("an HTML page without its end", "");
  }
  (void)RenderMarkdownReport(runs);
  auto comparison = CompareRuns(*run, *run);
  if (!comparison.ok()) Finding("a run that cannot be compared with itself", comparison.status().message());
  for (const ComparePoint& point : comparison->points) {
    if (point.ratio && *point.ratio != 1.0) Finding("a ratio other than 1 against itself", point.key);
  }
  (void)RenderComparison(*comparison);
  return 0;
}
