#include "cli/report_flags.h"

#include <fmt/format.h>

#include "cli/value_flags.h"

namespace xfer::cli {
namespace {


// The value of -o/--output in `word` (attached) or the next word.
Status TakeOutput(std::span<const std::string> args, size_t& i, ReportRequest& request,
                  bool& seen) {
  constexpr std::string_view kName = "-o/--output";
  const std::string& word = args[i];
  std::string value;
  if (word == "-o" || word == "--output") {
    if (i + 1 >= args.size()) return InvalidArgument(fmt::format("{}: missing value", kName));
    value = args[++i];
  } else if (word.starts_with("--output=")) {
    value = word.substr(9);
  } else {
    value = word.substr(2);  // -oFILE
  }
  if (seen) return InvalidArgument(fmt::format("{}: Duplicated argument", kName));
  seen = true;
  if (value.empty()) return InvalidArgument(fmt::format("{}: empty value", kName));
  request.output = std::move(value);
  return Status::Ok();
}

bool IsOutput(std::string_view word) {
  return word == "-o" || word == "--output" || word.starts_with("--output=") ||
         (word.starts_with("-o") && word.size() > 2);
}

Status ApplyReport(std::span<const std::string> args, ReportRequest& request) {
  bool seen_output = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (IsOutput(word)) {
      XFER_RETURN_IF_ERROR(TakeOutput(args, i, request, seen_output));
    } else if (word == "--markdown") {
      if (request.markdown) return InvalidArgument("--markdown: Duplicated argument");
      request.markdown = true;
    } else if (word.starts_with('-') && word != "-") {
      return InvalidArgument(fmt::format("unknown option '{}' (see 'xfer report --help')", word));
    } else {
      request.runs.push_back(word);
    }
  }
  if (request.runs.empty()) {
    return InvalidArgument("report: expected at least one RUN.json (see 'xfer report --help')");
  }
  if (!request.markdown && request.output.empty()) {
    return InvalidArgument("-o/--output: required for the HTML report (or --markdown for stdout)");
  }
  return Status::Ok();
}

}  // namespace

std::string ReportHelp() {
  return "Usage:\n"
         "  xfer report RUN.json [RUN2.json ...] -o report.html\n"
         "  xfer report --markdown RUN.json [RUN2.json ...] [-o report.md]\n"
         "\n"
         "Turns the --json files of perftest-style tests (xfer write_bw ... --json FILE)\n"
         "and of xfer matrix (--json FILE) into one self-contained HTML page: no\n"
         "script, no external file, plots drawn as inline SVG. For each run: its\n"
         "command line and host fingerprint where the file has them, and its tables;\n"
         "a matrix as a heat-coloured table. Plots: bandwidth and message rate\n"
         "against message size (log scale), latency percentiles against size, and\n"
         "for a matrix one plot per transport, GB/s against block size, a line per\n"
         "direction. Runs of the same test share axes, the legend names the file.\n"
         "A dashed line is the ceiling a run recorded for its path (--efficiency),\n"
         "where it knew one, and a plot of the efficiency against it follows. A run\n"
         "over several rails with --timeline gets a plot of each rail's Gb/s over\n"
         "time, a dashed line where a rail went down. Units as the files state\n"
         "them: GB/s = 10^9 bytes/s, Gb/s = 10^9 bit/s, MiB/s = 2^20 bytes/s.\n"
         "\n"
         "Every file is checked first; a malformed, truncated or foreign one ends\n"
         "the command with a message naming the file and the problem (exit 1), and\n"
         "no output file is written. The output is written whole or not at all.\n"
         "\n"
         "Options:\n"
         "  -o, --output=<file>  Write the page (or the Markdown) to <file>;\n"
         "                       required for HTML\n"
         "      --markdown       Write the same tables as Markdown instead, to\n"
         "                       stdout unless -o is given\n"
         "  -h, --help           Show this help screen\n"
         "\n"
         "Exit status: 0 written, 1 a file could not be read or written, 2 usage.\n";
}

std::string CompareHelp() {
  return "Usage:\n"
         "  xfer compare A.json B.json\n"
         "\n"
         "Prints every point the two runs share with A, B and the ratio B/A, and the\n"
         "points found in only one of them. Points match on the test and message\n"
         "size (perftest-style tests: BW_average, or t_typical for latency tests)\n"
         "or on transport, direction and block size (matrix: the median GB/s).\n"
         "A point is marked within the spread when the min..max ranges of A's and\n"
         "B's samples overlap. Only matrix cells carry samples; for perftest rows,\n"
         "and for cells with fewer than two timed samples, the spread is printed as\n"
         "unknown rather than guessed.\n"
         "\n"
         "Runs of different kinds, tests or units are refused. A malformed,\n"
         "truncated or foreign file ends with a message naming the file and the\n"
         "problem.\n"
         "\n"
         "Exit status: 0 compared, 1 a file could not be read or the runs are not\n"
         "comparable, 2 usage.\n";
}

Result<ParsedCommand> ParseReportCommand(std::span<const std::string> args) {
  ParsedCommand command;
  for (const std::string& word : args) {
    if (IsHelpFlag(word)) {
      command.action = ParsedCommand::Action::kHelp;
      command.help_text = ReportHelp();
      return command;
    }
  }
  command.action = ParsedCommand::Action::kReport;
  XFER_RETURN_IF_ERROR(ApplyReport(args, command.report));
  return command;
}

Result<ParsedCommand> ParseCompareCommand(std::span<const std::string> args) {
  ParsedCommand command;
  for (const std::string& word : args) {
    if (IsHelpFlag(word)) {
      command.action = ParsedCommand::Action::kHelp;
      command.help_text = CompareHelp();
      return command;
    }
  }
  for (const std::string& word : args) {
    if (word.starts_with('-') && word != "-") {
      return InvalidArgument(fmt::format("unknown option '{}' (see 'xfer compare --help')", word));
    }
  }
  if (args.size() != 2) {
    return InvalidArgument(fmt::format(
        "compare: expected two run files, A.json B.json, got {} (see 'xfer compare --help')",
        args.size()));
  }
  command.action = ParsedCommand::Action::kCompare;
  command.compare.a = args[0];
  command.compare.b = args[1];
  return command;
}

}  // namespace xfer::cli
