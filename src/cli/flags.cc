#include "cli/flags.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

#include "cli/benchmark_catalog.h"
#include "cli/couplings.h"
#include "cli/devices_flags.h"
#include "cli/doctor_flags.h"
#include "cli/flag_spec.h"
#include "cli/flag_table.h"
#include "cli/help_text.h"
#include "cli/host_argument.h"
#include "cli/matrix_flags.h"
#include "cli/report_flags.h"
#include "cli/tokenizer.h"
#include "cli/transport_option_flags.h"
#include "cli/version.h"

namespace xfer::cli {
namespace {

using Action = ParsedCommand::Action;

ParsedCommand TextCommand(Action action, std::string text) {
  ParsedCommand command;
  command.action = action;
  command.help_text = std::move(text);
  return command;
}

bool HasFlag(const Tokens& tokens, std::string_view long_name) {
  for (const FlagOccurrence& flag : tokens.flags) {
    if (LongName(*flag.spec) == long_name) return true;
  }
  return false;
}

// Applies each occurrence in command-line order, so the first bad flag on
// the line is the one reported.
Status ApplyFlags(const std::vector<FlagOccurrence>& flags, ParseState& state) {
  for (const FlagOccurrence& flag : flags) {
    const FlagSpec& spec = *flag.spec;
    const std::string name = DisplayName(spec);
    if (state.Given(LongName(spec))) {
      return InvalidArgument(name + ": Duplicated argument");
    }
    if (flag.explicit_value) {
      return InvalidArgument(
          fmt::format("{}: takes no value (got '{}')", name, flag.value));
    }
    if (!InScope(spec.scope, *state.test)) {
      return InvalidArgument(fmt::format("{}: {}, not {}", name,
                                         ScopeRequirement(spec.scope),
                                         state.test->name));
    }
    state.given.emplace_back(LongName(spec));
    if (!flag.value.empty()) {
      if (spec.short_name != '\0') state.typed[fmt::format("-{}", spec.short_name)] = flag.value;
      state.typed[fmt::format("--{}", LongName(spec))] = flag.value;
    }
    if (spec.apply != nullptr) {
      XFER_RETURN_IF_ERROR(spec.apply(spec, flag.value, state));
    }
  }
  return Status::Ok();
}

// Client iff a host is given; --loopback runs both roles here.
Status ApplyRole(const std::vector<std::string>& positionals,
                 ParseState& state) {
  bench::BenchParams& params = state.params;
  if (positionals.size() > 1) {
    return InvalidArgument(
        fmt::format("unexpected argument '{}': only one <host> may be given",
                    positionals[1]));
  }
  if (positionals.empty()) {
    params.role =
        state.loopback ? bench::Role::kLoopback : bench::Role::kServer;
    // The loopback server listens on -p when given, else on a free port.
    if (state.loopback && !state.Given("port")) params.port = 0;
    return Status::Ok();
  }
  const std::string host = HostWithoutBrackets(positionals.front());
  if (state.loopback) {
    return InvalidArgument(fmt::format(
        "--loopback cannot be combined with a <host> argument ('{}')", host));
  }
  XFER_RETURN_IF_ERROR(CheckHostArgument(host));
  params.role = bench::Role::kClient;
  params.server_host = host;
  return Status::Ok();
}

// "transport tcp has" or "transports shm and tcp have".
std::string TransportSubject(const ParseState& state) {
  if (!state.params.transport.empty()) {
    return fmt::format("transport {} has", state.params.transport);
  }
  if (state.transports.size() == 1) {
    return fmt::format("transport {} has", state.transports.front());
  }
  return fmt::format("transports {} have",
                     fmt::join(state.transports, " and "));
}

void AddVerbsNotes(ParseState& state) {
  const std::string subject = TransportSubject(state);
  for (const std::string& typed : state.verbs_flags) {
    state.params.notes.push_back(fmt::format(
        "{}: RDMA verbs flag; {} no verbs device, ignored", typed, subject));
  }
  if (state.connection != "RC") {
    state.params.notes.push_back(fmt::format(
        "-c {}: {} reliable connected (RC) semantics only; connection type "
        "ignored",
        state.connection, subject));
  }
}

// Why a run that needs RDMA verbs cannot start on a host without an RDMA
// device, naming what asked for verbs: --transport or --wire, the atomic
// test, a verbs flag (the first typed), or send_bw -b.
std::string NoRdmaDeviceRefusal(const ParseState& state) {
  constexpr std::string_view kNoDevice = "this host has no RDMA device (see 'xfer devices')";
  const bench::BenchParams& params = state.params;
  if (state.Given("transport")) {
    return fmt::format("--transport {}: {}", params.transport, kNoDevice);
  }
  if (state.Given("wire")) return fmt::format("--wire perftest: {}", kNoDevice);
  if (state.test->verb == bench::Verb::kAtomic) {
    return fmt::format("{} runs on RDMA verbs only, and {}", state.test->name, kNoDevice);
  }
  if (!params.verbs.typed.empty()) {
    return fmt::format("{}: RDMA verbs flag, which selects the verbs transport, and {}",
                       params.verbs.typed.front(), kNoDevice);
  }
  return fmt::format("-b/--bidirectional: send_bw runs bidirectional on RDMA verbs only, and {}",
                     kNoDevice);
}

// --wire perftest's own checks: this build has the wire, the transport is
// its transport, and no secret is asked for.
Status CheckPerftestWire(ParseState& state, const std::string& perftest) {
  bench::BenchParams& params = state.params;
  if (perftest.empty()) {
    return InvalidArgument(
        "--wire perftest: this xfer is built without RDMA verbs, the one transport perftest's "
        "wire protocol runs on");
  }
  if (!params.transport.empty() && params.transport != perftest) {
    return InvalidArgument(fmt::format("--wire perftest runs on --transport {} only, not {}",
                                       perftest, params.transport));
  }
  if (!params.secret.empty()) {
    return InvalidArgument(
        "--secret-file: perftest's wire protocol has no place for a secret; use --wire xfer");
  }
  if (params.notify) {
    return InvalidArgument(
        "--notify: perftest's wire protocol has no notifications; use --wire xfer");
  }
  if (params.prepared) {
    return InvalidArgument(
        "--prepared: perftest's wire posts verbs work requests itself; prepared lists run on "
        "xfer's wire (--wire xfer)");
  }
  if (params.rails != 0 || !params.rail_ends.empty()) {
    return InvalidArgument(
        "--rails: perftest's wire runs over one device, as perftest does; rails run on xfer's "
        "wire (--wire xfer)");
  }
  if (params.timeline_ms != 0) {
    return InvalidArgument(
        "--timeline: perftest's wire runs over one device, as perftest does; the rails' timeline "
        "runs on xfer's wire (--wire xfer)");
  }
  if (params.device_path == DevicePath::kStaged) {
    return InvalidArgument(
        "--device_path staged: perftest's wire registers the test buffer with the NIC, as stock "
        "perftest does; staging runs on xfer's wire (--wire xfer)");
  }
  params.transport = perftest;
  return Status::Ok();
}

// Atomic tests and send_bw -b run on perftest's wire only.
Status CheckNeedsPerftestWire(const ParseState& state, const std::string& perftest) {
  const bench::BenchParams& params = state.params;
  const bool atomic = state.test->verb == bench::Verb::kAtomic;
  const bool send_bidirectional = state.test->verb == bench::Verb::kSend && params.bidirectional;
  if (!atomic && !send_bidirectional) return Status::Ok();
  const bool other_transport = !params.transport.empty() && params.transport != perftest;
  const bool refused = perftest.empty() || other_transport || params.wire == bench::Wire::kXfer;
  if (!refused) return Status::Ok();
  if (send_bidirectional) {
    return InvalidArgument(fmt::format(
        "-b/--bidirectional: send_bw runs bidirectional on RDMA verbs only; {} does not support "
        "it yet",
        params.wire == bench::Wire::kXfer && !other_transport ? std::string("--wire xfer")
        : params.transport.empty() ? fmt::format("{}", fmt::join(state.transports, "/"))
                                   : params.transport));
  }
  if (other_transport) {
    return InvalidArgument(fmt::format(
        "--transport {}: {} runs on RDMA verbs only{}", params.transport, state.test->name,
        perftest.empty() ? std::string() : fmt::format(" (--transport {})", perftest)));
  }
  if (perftest.empty()) {
    return InvalidArgument(fmt::format(
        "{} needs the RDMA verbs transport, which this xfer does not offer (transports: {})",
        state.test->name, fmt::join(state.transports, ", ")));
  }
  return InvalidArgument(fmt::format("--wire xfer: {} runs on perftest's wire only (--wire perftest)",
                                     state.test->name));
}

// The wire and transport rule of flags.h.
Status ResolveWire(ParseState& state, const ParserConfig& config) {
  bench::BenchParams& params = state.params;
  const std::string& perftest = config.perftest_transport;
  if (params.wire == bench::Wire::kPerftest) XFER_RETURN_IF_ERROR(CheckPerftestWire(state, perftest));
  // ParserConfig::host_has_rdma_device, asked at most once; unknown (null)
  // counts as having one.
  std::optional<bool> rdma;
  auto host_has_rdma = [&] {
    if (!rdma) rdma = !config.host_has_rdma_device || config.host_has_rdma_device();
    return *rdma;
  };
  // Flags only xfer's wire carries. Each implies it; where the run would
  // otherwise have been on perftest's (verbs named, or no transport on a
  // host with an RDMA device), the note says that a stock perftest peer
  // cannot join. On a host without one there was never such a peer.
  const struct {
    bool given;
    const char* note;
  } needs_xfer_wire[] = {
      {!params.secret.empty(),
       "--secret-file: runs on xfer's wire protocol (--wire xfer): perftest's has no place for a "
       "secret, so a stock perftest peer cannot join"},
      {params.prepared,
       "--prepared: runs on xfer's wire protocol (--wire xfer), whose engine prepares the lists; "
       "a stock perftest peer cannot join"},
      {params.rails != 0 || !params.rail_ends.empty(),
       "--rails: runs on xfer's wire protocol (--wire xfer), whose engine stripes over rails; a "
       "stock perftest peer cannot join"},
      {params.timeline_ms != 0,
       "--timeline: runs on xfer's wire protocol (--wire xfer), whose engine records the rails; "
       "a stock perftest peer cannot join"},
      {params.notify,
       "--notify: runs on xfer's wire protocol (--wire xfer): perftest's has no notifications, "
       "so a stock perftest peer cannot join"},
      {params.device_path == DevicePath::kStaged,
       "--device_path staged: runs on xfer's wire protocol (--wire xfer), whose engine stages; a "
       "stock perftest peer cannot join"},
  };
  for (const auto& [given, note] : needs_xfer_wire) {
    if (params.wire || !given) continue;
    params.wire = bench::Wire::kXfer;
    const bool perftest_peer_possible =
        !perftest.empty() &&
        (params.transport == perftest || (params.transport.empty() && host_has_rdma()));
    if (perftest_peer_possible) params.notes.push_back(note);
  }
  const bool atomic = state.test->verb == bench::Verb::kAtomic;
  if (!params.wire && params.transport.empty() && !perftest.empty() &&
      (atomic || !params.verbs.typed.empty() || params.cuda_dmabuf)) {
    params.transport = perftest;
  }
  if (!params.wire && !params.transport.empty()) {
    params.wire = params.transport == perftest ? bench::Wire::kPerftest : bench::Wire::kXfer;
  }
  if (params.cuda_dmabuf && params.wire != bench::Wire::kPerftest) {
    return InvalidArgument(
        perftest.empty()
            ? std::string("--use_cuda_dmabuf registers memory with an RDMA NIC, and this xfer is "
                          "built without RDMA verbs")
            : fmt::format("--use_cuda_dmabuf registers memory with the NIC on perftest's wire "
                          "(--transport {}); {} moves device memory its own way",
                          perftest,
                          params.wire == bench::Wire::kXfer ? "--wire xfer" : params.transport));
  }
  XFER_RETURN_IF_ERROR(CheckNeedsPerftestWire(state, perftest));
  if (perftest.empty() || (!params.transport.empty() && params.transport != perftest)) {
    AddVerbsNotes(state);
  }
  const bool send_bidirectional = state.test->verb == bench::Verb::kSend && params.bidirectional;
  const bool needs_rdma = (!perftest.empty() && params.transport == perftest) ||
                          (params.transport.empty() && send_bidirectional);
  if (needs_rdma && !host_has_rdma()) {
    return InvalidArgument(NoRdmaDeviceRefusal(state));
  }
  return Status::Ok();
}

Result<ParsedCommand> ParseTest(const TestInfo& test,
                                std::span<const std::string> args,
                                const ParserConfig& config) {
  const std::vector<const FlagSpec*> flags = AllFlags();
  Result<Tokens> tokens = Tokenize(flags, args);
  if (!tokens.ok()) return tokens.status();
  if (HasFlag(*tokens, "help")) {
    return TextCommand(Action::kHelp, TestHelp(test, config.transports, config.perftest_transport));
  }
  if (HasFlag(*tokens, "version")) {
    return TextCommand(Action::kVersion, VersionText());
  }
  if (!tokens->unknown.empty()) {
    return InvalidArgument(
        fmt::format("unknown option '{}' (see 'xfer {} --help')",
                    tokens->unknown.front(), test.name));
  }
  ParseState state;
  state.test = &test;
  state.params = DefaultParams(test);
  state.transports = config.transports;
  XFER_RETURN_IF_ERROR(ApplyFlags(tokens->flags, state));
  XFER_RETURN_IF_ERROR(ApplyRole(tokens->positionals, state));
  XFER_RETURN_IF_ERROR(ApplyCouplings(state));
  XFER_RETURN_IF_ERROR(ResolveWire(state, config));
  state.params.transport_options = TransportOptionsFromFlags(state.typed, config.transport_options);
  ParsedCommand command;
  command.params = std::move(state.params);
  command.secret_file = std::move(state.secret_file);
  return command;
}

// What may come first on the command line, for the messages that say it
// did not: every test and every other command.
std::string EveryCommand() {
  return fmt::format("a test ({}) or one of {}, {}, {}, {}, {}", TestNameList(), kDevicesCommand,
                     kMatrixCommand, kDoctorCommand, kReportCommand, kCompareCommand);
}

}  // namespace

std::string HelpCommandFor(int argc, const char* const* argv) {
  if (argv == nullptr || argc < 2 || argv[1] == nullptr) return "xfer --help";
  const std::string_view first = argv[1];
  const bool command = first == kDevicesCommand || first == kMatrixCommand ||
                       first == kDoctorCommand || first == kReportCommand ||
                       first == kCompareCommand;
  if (!command && (first.starts_with('-') || FindTest(first) == nullptr)) return "xfer --help";
  return fmt::format("xfer {} --help", first);
}

Result<ParsedCommand> ParseCommandLine(int argc, const char* const* argv,
                                       const ParserConfig& config) {
  if (argv == nullptr || argc < 2 || argv[1] == nullptr) {
    return InvalidArgument("missing <test>: expected " + EveryCommand());
  }
  const std::string_view first = argv[1];
  if (first == "-h" || first == "--help") {
    return TextCommand(Action::kHelp, TopLevelHelp(config.transports, config.perftest_transport, config.transport_options));
  }
  if (first == "-V" || first == "--version") {
    return TextCommand(Action::kVersion, VersionText());
  }
  if (first == kDevicesCommand) {
    std::vector<std::string> args;
    for (int i = 2; i < argc && argv[i] != nullptr; ++i)
      args.emplace_back(argv[i]);
    return ParseDevicesCommand(args);
  }
  if (first == kDoctorCommand) {
    std::vector<std::string> args;
    for (int i = 2; i < argc && argv[i] != nullptr; ++i)
      args.emplace_back(argv[i]);
    return ParseDoctorCommand(args);
  }
  if (first == kReportCommand || first == kCompareCommand) {
    std::vector<std::string> args;
    for (int i = 2; i < argc && argv[i] != nullptr; ++i)
      args.emplace_back(argv[i]);
    return first == kReportCommand ? ParseReportCommand(args)
                                   : ParseCompareCommand(args);
  }
  if (first == kMatrixCommand) {
    std::vector<std::string> args;
    std::vector<std::string> typed;
    for (int i = 0; i < argc && argv[i] != nullptr; ++i) {
      typed.emplace_back(argv[i]);
      if (i >= 2) args.emplace_back(argv[i]);
    }
    return ParseMatrixCommand(args, typed, config.transport_options);
  }
  const TestInfo* test = first.starts_with('-') ? nullptr : FindTest(first);
  if (test == nullptr) {
    return InvalidArgument(fmt::format(
        "{} '{}': expected {}",
        first.starts_with('-') ? "expected a test name before options, got"
                               : "unknown test",
        first, EveryCommand()));
  }
  std::vector<std::string> args;
  for (int i = 2; i < argc && argv[i] != nullptr; ++i)
    args.emplace_back(argv[i]);
  auto command = ParseTest(*test, args, config);
  if (command.ok() && command->action == Action::kRun) {
    for (int i = 0; i < argc && argv[i] != nullptr; ++i)
      command->params.command_line.emplace_back(argv[i]);
  }
  return command;
}

}  // namespace xfer::cli
