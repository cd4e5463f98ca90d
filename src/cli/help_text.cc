#include "cli/help_text.h"

#include <fmt/format.h>

#include "cli/flag_table.h"
#include "cli/version.h"

namespace xfer::cli {
namespace {

std::string JoinTransports(std::span<const std::string> transports,
                           std::string_view separator) {
  return fmt::format("{}", fmt::join(transports, separator));
}

// One perftest-style line: "  -s, --size=<size>  Size of ... (default 2)".
std::string FlagLine(const FlagSpec& spec, const bench::BenchParams& defaults,
                     std::span<const std::string> transports) {
  std::string line = spec.short_name != '\0'
                         ? fmt::format("  -{}, ", spec.short_name)
                         : std::string(6, ' ');
  line += "--";
  line += LongName(spec);
  if (LongName(spec) == "transport") {
    line += fmt::format("=<{}>", JoinTransports(transports, "|"));
  } else if (TakesValue(spec)) {
    line += fmt::format("={}", spec.value_name);
  }
  line += "  ";
  line += spec.help;
  if (spec.default_text != nullptr) {
    line += fmt::format(" (default {})", spec.default_text(defaults));
  }
  line += '\n';
  return line;
}

std::string GroupLines(const TestInfo& test, Group group,
                       std::span<const std::string> transports) {
  const bench::BenchParams defaults = DefaultParams(test);
  std::string lines;
  for (const FlagSpec* spec : AllFlags()) {
    if (spec->group == group && InScope(spec->scope, test)) {
      lines += FlagLine(*spec, defaults, transports);
    }
  }
  return lines;
}

std::string UnsupportedList(const TestInfo& test) {
  std::string list;
  for (const FlagSpec* spec : AllFlags()) {
    if (spec->group != Group::kUnsupported || !InScope(spec->scope, test)) {
      continue;
    }
    list += spec->short_name != '\0' ? fmt::format(" -{}", spec->short_name)
                                     : fmt::format(" --{}", LongName(*spec));
  }
  return list;
}

}  // namespace

std::string TopLevelHelp(std::span<const std::string> transports) {
  std::string text = fmt::format(
      "Usage:\n"
      "  xfer <test> [options]             start a server and wait for "
      "connection\n"
      "  xfer <test> [options] <host>      connect to server at <host>\n"
      "  xfer <test> [options] --loopback  run server and client on this "
      "host\n"
      "  xfer <test> --help                options of one test\n"
      "  xfer --version                    version (mirrors perftest {})\n"
      "\n"
      "A perftest-compatible benchmark for libxfer (transports: {}).\n"
      "\n"
      "Tests:\n",
      kPerftestVersion, JoinTransports(transports, ", "));
  for (const TestInfo& test : AllTests()) {
    text += fmt::format("  {:<10} {} (perftest ib_{})\n", test.name,
                        test.summary, test.name);
  }
  return text;
}

std::string TestHelp(const TestInfo& test,
                     std::span<const std::string> transports) {
  std::string text = fmt::format(
      "Usage:\n"
      "  xfer {0} [options]             start a server and wait for "
      "connection\n"
      "  xfer {0} [options] <host>      connect to server at <host>\n"
      "  xfer {0} [options] --loopback  run server and client on this host\n"
      "\n"
      "Options:\n",
      test.name);
  text += GroupLines(test, Group::kPerftest, transports);
  text += "\nxfer options:\n";
  text += GroupLines(test, Group::kXfer, transports);
  text += fmt::format(
      "\nRDMA verbs options (checked, then ignored: {} have no verbs "
      "device):\n",
      JoinTransports(transports, " and "));
  text += GroupLines(test, Group::kVerbs, transports);
  text +=
      "\nperftest options not supported yet:" + UnsupportedList(test) + "\n";
  return text;
}

}  // namespace xfer::cli
