// `xfer report [--markdown] [-o FILE] RUN.json...` and
// `xfer compare A.json B.json`: read finished runs back from their --json
// files (report/run_document.h) and turn them into an HTML page, Markdown
// tables or a comparison.
//
// Values may be attached (-oFILE, --output=FILE) or follow as the next
// word. Without --markdown, -o is required (the HTML page is one file);
// with --markdown the tables go to stdout, or to -o FILE.
#ifndef XFER_CLI_REPORT_FLAGS_H_
#define XFER_CLI_REPORT_FLAGS_H_

#include <span>
#include <string>
#include <string_view>

#include "cli/flags.h"
#include "xfer/status.h"

namespace xfer::cli {

// The subcommand words, argv[1].
inline constexpr std::string_view kReportCommand = "report";
inline constexpr std::string_view kCompareCommand = "compare";

// Parses the words after "report". Yields kReport with
// ParsedCommand::report filled in, or kHelp with ReportHelp() when -h or
// --help appears anywhere. Thread-safe.
// Errors: kInvalidArgument naming the flag for an unknown option, a missing
// or empty value, a repeated flag, no run file, or HTML without -o
// ("-o/--output: required for the HTML report (or --markdown for stdout)").
Result<ParsedCommand> ParseReportCommand(std::span<const std::string> args);

// Parses the words after "compare": exactly two run files. Yields
// kCompare, or kHelp with CompareHelp(). Errors: kInvalidArgument for an
// option or a count of files other than two.
Result<ParsedCommand> ParseCompareCommand(std::span<const std::string> args);

// The help screens. Each ends with a newline.
std::string ReportHelp();
std::string CompareHelp();

}  // namespace xfer::cli

#endif  // XFER_CLI_REPORT_FLAGS_H_
