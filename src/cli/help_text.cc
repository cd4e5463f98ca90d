#include "cli/help_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "cli/flag_table.h"

namespace xfer::cli {
namespace {

std::string JoinTransports(std::span<const std::string> transports,
                           std::string_view separator) {
  return fmt::format("{}", fmt::join(transports, separator));
}

// What the help screens describe: the names --transport accepts, and the
// one perftest's wire runs on ("" when this build has none).
struct Offer {
  std::span<const std::string> transports;
  std::string_view perftest;
};

bool OffersVerbs(const Offer& offer) { return !offer.perftest.empty(); }

// The transports other than perftest's, for "... ignore them".
std::vector<std::string> EngineTransports(const Offer& offer) {
  std::vector<std::string> engine;
  for (const std::string& name : offer.transports) {
    if (name != offer.perftest) engine.push_back(name);
  }
  return engine;
}

// --transport's help: its default depends on whether verbs is offered
// (the transport rule of flags.h).
std::string_view TransportHelp(const FlagSpec& spec, const Offer& offer) {
  if (!OffersVerbs(offer)) return spec.help;
  return "Transport to use (default: verbs when an RDMA verbs option is "
         "given, the test is atomic or this host has an RDMA device; else "
         "the engine's choice, shm on one host, else tcp)";
}

// The heading of the verbs group.
std::string VerbsHeading(const Offer& offer) {
  const std::vector<std::string> engine = EngineTransports(offer);
  if (!OffersVerbs(offer)) {
    return fmt::format(
        "RDMA verbs options (checked, then ignored: {} have no verbs "
        "device):\n",
        JoinTransports(engine, " and "));
  }
  if (engine.empty()) {
    return "RDMA verbs options (honoured by the verbs transport):\n";
  }
  return fmt::format(
      "RDMA verbs options (honoured by the verbs transport; {} note them as "
      "ignored):\n",
      JoinTransports(engine, " and "));
}

// The option column of a help line: "  -s, --size=<size>" or
// "      --json=<file>".
std::string OptionText(const FlagSpec& spec, const Offer& offer) {
  std::string text = spec.short_name != '\0'
                         ? fmt::format("  -{}, ", spec.short_name)
                         : std::string(6, ' ');
  text += "--";
  text += LongName(spec);
  if (LongName(spec) == "transport") {
    text += fmt::format("=<{}>", JoinTransports(offer.transports, "|"));
  } else if (TakesValue(spec)) {
    text += fmt::format("={}", spec.value_name);
  }
  return text;
}

// Where the descriptions of a test's help screen start: two spaces past its
// widest option column, so that every option line lines up.
size_t DescriptionColumn(const TestInfo& test, const Offer& offer) {
  size_t widest = 0;
  for (const FlagSpec* spec : AllFlags()) {
    if (spec->group != Group::kUnsupported && InScope(spec->scope, test)) {
      widest = std::max(widest, OptionText(*spec, offer).size());
    }
  }
  return widest + 2;
}

// One option line: "  -s, --size=<size>  Size of ... (default 2)", the
// description padded to start at `column`.
// REQUIRES: column >= OptionText(spec, offer).size() + 2.
std::string FlagLine(const FlagSpec& spec, const bench::BenchParams& defaults, const Offer& offer,
                     size_t column) {
  std::string line = OptionText(spec, offer);
  line.append(column - line.size(), ' ');
  line += LongName(spec) == "transport" ? TransportHelp(spec, offer) : spec.help;
  if (spec.default_text != nullptr) {
    line += fmt::format(" (default {})", spec.default_text(defaults));
  }
  line += '\n';
  return line;
}

std::string GroupLines(const TestInfo& test, Group group, const Offer& offer, size_t column) {
  const bench::BenchParams defaults = DefaultParams(test);
  std::string lines;
  for (const FlagSpec* spec : AllFlags()) {
    if (spec->group == group && InScope(spec->scope, test)) {
      lines += FlagLine(*spec, defaults, offer, column);
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

std::string TransportOptionLines(std::span<const TransportOptionInfo> transport_options) {
  std::string lines;
  for (const TransportOptionInfo& option : transport_options) {
    const std::string takes =
        !option.integer ? "text"
        : option.choices.empty()
            ? fmt::format("{}..{}", option.min, option.max)
            : fmt::format("{}", fmt::join(option.choices, "|"));
    lines += fmt::format("  {:<3} {:<16} {} ({}; default: {})\n",
                         option.flag.empty() ? "" : option.flag,
                         option.transport + " " + option.key, option.doc, takes,
                         option.default_text);
  }
  return lines;
}

std::string TopLevelHelp(std::span<const std::string> transports,
                         std::string_view perftest_transport,
                         std::span<const TransportOptionInfo> transport_options) {
  const std::string wires =
      perftest_transport.empty()
          ? std::string("xfer's wire protocol")
          : fmt::format("perftest's wire protocol on {}, xfer's on all", perftest_transport);
  std::string text = fmt::format(
      "Usage:\n"
      "  xfer <test> [options]             start a server and wait for "
      "connection\n"
      "  xfer <test> [options] <host>      connect to server at <host>\n"
      "  xfer <test> [options] --loopback  run server and client on this "
      "host\n"
      "  xfer <test> --help                options of one test\n"
      "  xfer devices [-d <dev>] [--json <file>]\n"
      "                                    list RDMA devices, ports and GIDs\n"
      "  xfer doctor [-d <dev>] [--run <run.json>]\n"
      "                                    what limits RDMA bandwidth here; judge a run\n"
      "  xfer matrix [options] [<host>|--loopback]\n"
      "                                    HIXL-style bandwidth matrix on libxfer\n"
      "  xfer report RUN.json... -o <file> [--markdown]\n"
      "                                    HTML page (or Markdown) of runs' --json files\n"
      "  xfer compare A.json B.json        B/A for every point two runs share\n"
      "  xfer --version                    xfer's version and the perftest versions it "
      "follows\n"
      "\n"
      "A perftest-compatible benchmark for libxfer (transports: {}; {}).\n"
      "\n"
      "Tests:\n",
      JoinTransports(transports, ", "), wires);
  for (const TestInfo& test : AllTests()) {
    text += fmt::format("  {:<10} {} (perftest ib_{})\n", test.name,
                        test.summary, test.name);
  }
  if (const std::string options = TransportOptionLines(transport_options); !options.empty()) {
    text += "\nTransport options on xfer's wire (each transport's own table; the flag sets it):\n";
    text += options;
  }
  return text;
}

std::string TestHelp(const TestInfo& test, std::span<const std::string> transports,
                     std::string_view perftest_transport) {
  const Offer offer{transports, perftest_transport};
  std::string text = fmt::format(
      "Usage:\n"
      "  xfer {0} [options]             start a server and wait for "
      "connection\n"
      "  xfer {0} [options] <host>      connect to server at <host>\n"
      "  xfer {0} [options] --loopback  run server and client on this host\n",
      test.name);
  if (test.verb == bench::Verb::kAtomic) {
    text += fmt::format(
        "\n{} runs on RDMA verbs only, on perftest's wire (--wire perftest); the message size "
        "is fixed at 8 bytes.\n",
        test.name);
  }
  const size_t column = DescriptionColumn(test, offer);
  text += "\nOptions:\n";
  text += GroupLines(test, Group::kPerftest, offer, column);
  text += "\nxfer options:\n";
  text += GroupLines(test, Group::kXfer, offer, column);
  text += '\n';
  text += VerbsHeading(offer);
  text += GroupLines(test, Group::kVerbs, offer, column);
  text +=
      "\nperftest options not supported yet:" + UnsupportedList(test) + "\n";
  return text;
}

}  // namespace xfer::cli
