// The `xfer` command line: `xfer <test> [options] [host]`, where <test> is
// one of write_bw, read_bw, send_bw, write_lat, read_lat, send_lat (perftest's
// tool names without "ib_"; the "ib_" spelling is accepted too). Options
// follow perftest 6.06 (../shared/reference/perftest.md §3) with perftest's
// defaults and coupling rules (§2.3), plus xfer's --transport, --timeout,
// --loopback, --accept_timeout and --json.
//
// Decisions where perftest is silent or unhelpful:
//  * Values must parse completely ("12abc" is an error; perftest reads 12).
//  * -n with -D and -f without -D are accepted, as perftest does, and
//    reported as ignored in BenchParams::notes. In duration mode
//    BenchParams::iterations keeps its value but means nothing.
//  * RDMA-verbs-only flags (-d, -i, -m, -x, -c, -o, -I, -S, -u, -R, -z, -T,
//    ...) are validated like perftest, then reported in notes as ignored,
//    because no xfer transport has a verbs device. -c other than RC is
//    noted as running reliable connected.
//  * perftest flags xfer cannot honour yet (-b, -e, -C, -H, -U, -O, ...) are
//    refused, so a script never measures something else than it asked for.
//  * A flag outside its test's scope is refused (-q, -N, -l, -b in latency
//    tests; -o outside read tests; -I in read tests; -r > 1 in write/read).
//  * -t and -Q are accepted by every test, as perftest does; in latency
//    tests cq_mod ends up 1 (capped to the default tx depth of 1).
//  * Repeating a flag is an error, as in perftest ("Duplicated argument").
//  * --transport accepts only the names in ParserConfig::transports.
//  * BenchParams comes out with perftest's effective tx_depth, cq_mod,
//    rx_depth and margin (couplings.h) and cq_mod_given set; no_peak is
//    only -N. bench::ResolveSettings() re-applies the same rules, forces
//    no-peak where perftest does and prints perftest's notices, so notes
//    carry only what the CLI alone knows (ignored flags).
#ifndef XFER_CLI_FLAGS_H_
#define XFER_CLI_FLAGS_H_

#include <string>
#include <vector>

#include "bench/bench_params.h"
#include "xfer/status.h"

namespace xfer::cli {

struct ParsedCommand {
  enum class Action { kRun, kHelp, kVersion };
  Action action = Action::kRun;
  // kRun: the benchmark to run. Defaults otherwise.
  bench::BenchParams params;
  // kHelp: the usage screen; kVersion: the version line. Print as is (it
  // ends with a newline). Empty for kRun.
  std::string help_text;
};

struct ParserConfig {
  // The names --transport accepts, shown in --help. main() may pass the
  // engine's registered transports. Must not be empty.
  std::vector<std::string> transports = {"shm", "tcp"};
};

// Parses a whole command line; argv[0] is the program name and is ignored.
// `xfer --help`, `xfer <test> --help` (-h) and `xfer [<test>] --version`
// (-V) yield kHelp / kVersion; help wins over every other problem on the
// line except a flag missing its value. Otherwise the role is kClient with
// a positional host, kLoopback with --loopback, else kServer.
// Thread-safe; argv is only read during the call.
// Errors: kInvalidArgument ("usage error": main prints "xfer: <message>" and
// exits 2) for a missing or unknown test, unknown option, bad value, repeated
// flag, flag outside its test's scope, unsupported perftest flag, more than
// one host, a host with --loopback, or a refused combination (-a with -D,
// D <= 2*margin, ...). The message names the flag and the problem, e.g.
// "-s/--size: 'abc' is not a number". kInternal for a malformed flag table.
Result<ParsedCommand> ParseCommandLine(int argc, const char* const* argv,
                                       const ParserConfig& config = {});

}  // namespace xfer::cli

#endif  // XFER_CLI_FLAGS_H_
