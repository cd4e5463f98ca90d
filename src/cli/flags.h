// The `xfer` command line: `xfer <test> [options] [host]`, where <test> is
// one of write_bw, read_bw, send_bw, atomic_bw, write_lat, read_lat,
// send_lat, atomic_lat (perftest's tool names without "ib_"; the "ib_"
// spelling is accepted too). Options
// follow perftest 6.06 (../shared/reference/perftest.md §3) with perftest's
// defaults and coupling rules (§2.3), plus xfer's --transport, --timeout,
// --loopback, --accept_timeout and --json.
//
// Decisions where perftest is silent or unhelpful:
//  * Values must parse completely ("12abc" is an error; perftest reads 12).
//  * -n with -D and -f without -D are accepted, as perftest does, and
//    reported as ignored in BenchParams::notes. In duration mode
//    BenchParams::iterations keeps its value but means nothing.
//  * RDMA-verbs-only flags (-d, -i, -m, -x, -c, -o, -I, -S, -u, -A, --ipv6,
//    --tclass, --pkey_index) are validated like perftest and stored in
//    BenchParams::verbs; each is also appended as typed ("-d rxe0") to
//    verbs.typed. Verbs flags no transport implements yet (-R, -z, -T,
//    --use-srq, --mr_per_qp, --odp, --force-link) are refused, whatever the
//    transport. -c XRC/DC/SRD are refused; perftest's per-verb rules hold
//    (UC not for read/atomic, UD only for send).
//  * The wire and transport rule (configuration only; the parser never
//    opens a device). "Perftest's transport" is ParserConfig::
//    perftest_transport, the one transport perftest's wire runs on ("verbs";
//    "" in a build without it, which refuses --wire perftest).
//    - --wire perftest takes perftest's transport (any other --transport is
//      an error) and refuses --secret-file. --wire xfer takes any transport.
//    - --secret-file without --wire implies --wire xfer (perftest's wire has
//      no place for a secret), with a note when the run may be on verbs.
//    - Without --wire or --transport, a verbs flag or an atomic test selects
//      perftest's transport and wire where this build has it.
//    - Without --wire, a --transport decides it: perftest's transport runs
//      on perftest's wire, every other on xfer's. Neither given: params.wire
//      stays nullopt and the run decides when it starts (perftest's wire on
//      a host with an RDMA device, else xfer's).
//    - Atomic tests and send_bw -b run on perftest's wire only: --wire xfer,
//      another --transport, or a build without perftest's wire refuse them.
//    - A run on perftest's transport (or send_bw -b without --transport) is
//      refused when ParserConfig says this host has no RDMA device, so it
//      fails before anything starts.
//  * Notes for verbs flags ("-d mlx5_0: RDMA verbs flag; transport tcp has
//    no verbs device, ignored"; -c UC/UD: "... reliable connected (RC)
//    semantics only ...") are added only when the transport is known not to
//    be verbs: a --transport other than perftest's, or a build without it.
//  * Atomic tests: the size is fixed at 8 (-s other than 8 is refused with
//    perftest's "Message size cannot be changed for Atomic tests"), and -a
//    is refused, as in perftest.
//  * perftest flags xfer cannot honour yet (-e, -C, -H, -U, -O, -b in
//    send_bw, ...) are refused, so a script never measures something else
//    than it asked for.
//  * A flag outside its test's scope is refused (-q, -N, -l, -b in latency
//    tests; -o outside read and atomic tests; -I in read and atomic tests;
//    -A outside atomic tests; -r > 1 outside send tests).
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

#include <functional>
#include <string>
#include <vector>

#include "bench/cluster/cluster_config.h"
#include "bench/matrix/matrix_config.h"
#include "bench/model/bench_params.h"
#include "xfer/engine.h"
#include "xfer/status.h"

namespace xfer::cli {

// `xfer devices [-d NAME] [--json FILE]` (cli/devices_flags.h).
struct DevicesRequest {
  std::string device;     // -d/--ib-dev: list only this device; "" = all
  std::string json_path;  // --json: also write the listing here; "" = no
};

// `xfer report RUN.json... [-o FILE] [--markdown]` (cli/report_flags.h).
struct ReportRequest {
  std::vector<std::string> runs;  // the run files, in the order given
  std::string output;             // -o/--output; "" = stdout (Markdown only)
  bool markdown = false;          // --markdown: tables as Markdown, not HTML
};

// `xfer compare A.json B.json` (cli/report_flags.h).
struct CompareRequest {
  std::string a;
  std::string b;
};

// `xfer doctor [-d NAME] [-i PORT] [--run FILE] [--json FILE]
// [--sysfs-root DIR]` (cli/doctor_flags.h).
struct DoctorRequest {
  std::string device;          // -d/--ib-dev: "" = the run's device, else all
  int port = 0;                // -i/--ib-port: 0 = the run's port, else all
  std::string run_path;        // --run: "" = no run to judge
  std::string json_path;       // --json: "" = no file
  std::string sysfs_root = "/";
  std::string nic_map_path;    // --nic-map: "" = what sysfs says
};

struct ParsedCommand {
  enum class Action {
    kRun, kHelp, kVersion, kDevices, kMatrix, kCluster, kDoctor, kReport, kCompare
  };
  Action action = Action::kRun;
  // kRun: the benchmark to run. Defaults otherwise.
  bench::BenchParams params;
  // kDevices: what to list. Defaults otherwise.
  DevicesRequest devices;
  // kDoctor: what to diagnose. Defaults otherwise.
  DoctorRequest doctor;
  // kMatrix: the matrix to run (cli/matrix_flags.h). Defaults otherwise.
  matrix::MatrixConfig matrix;
  // kCluster: `xfer matrix --scheme ...` under mpirun (cli/matrix_flags.h).
  cluster::ClusterConfig cluster;
  // kReport / kCompare: the files to read (cli/report_flags.h).
  ReportRequest report;
  CompareRequest compare;
  // kRun, kMatrix, kCluster: --secret-file as given ("" = none); the
  // secret itself is in params / matrix. Kept to refuse an output over it
  // (cli/file_uses.h).
  std::string secret_file;
  // kHelp: the usage screen; kVersion: the version line. Print as is (it
  // ends with a newline). Empty for kRun.
  std::string help_text;
};

struct ParserConfig {
  // The names --transport accepts, shown in --help: the engine's
  // registered transports. Must not be empty.
  std::vector<std::string> transports = {"shm", "tcp"};
  // The transport perftest's wire protocol runs on (launch/run_benchmark.h,
  // PerftestTransport()); "" when this build has none. When set, it must be
  // one of `transports`.
  std::string perftest_transport;
  // The built-in transports' options (xfer::BuiltinTransportOptions): the
  // flags that set them fill BenchParams::transport_options.
  std::vector<TransportOptionInfo> transport_options;
  // Whether this host has an RDMA device. Called at most once, and only for
  // a run that needs verbs (see the transport rule above) or that may give
  // a note about stock perftest peers (none can join where there is no
  // device); null means unknown: such a run is accepted (it finds out when
  // it opens the device) and the note given. main() passes a look at the
  // device list.
  std::function<bool()> host_has_rdma_device;
};

// Parses a whole command line; argv[0] is the program name and is ignored.
// `xfer devices ...` is parsed by ParseDevicesCommand (cli/devices_flags.h)
// and yields kDevices (or kHelp); `xfer matrix ...` by ParseMatrixCommand
// (cli/matrix_flags.h) and yields kMatrix (or kHelp); `xfer report ...` and
// `xfer compare ...` by cli/report_flags.h and yield kReport / kCompare.
// `xfer --help`, `xfer <test> --help` (-h) and `xfer [<test>] --version`
// (-V) yield kHelp / kVersion; help wins over every other problem on the
// line except a flag missing its value. Otherwise the role is kClient with
// a positional host, kLoopback with --loopback (params.port 0 unless -p
// was given: the loopback server then listens on a free port), else
// kServer.
// Thread-safe; argv is only read during the call.
// Errors: kInvalidArgument ("usage error": main prints "xfer: <message>" and
// exits 2) for a missing or unknown test, unknown option, bad value, repeated
// flag, flag outside its test's scope, unsupported perftest flag, more than
// one host, a host with --loopback, a refused combination (-a with -D,
// D <= 2*margin, ...), or a run that needs an RDMA device this host lacks.
// The message names the flag and the problem, e.g. "-s/--size: 'abc' is not
// a number". kInternal for a malformed flag table.
// Where a usage error of this command line points: "xfer <name> --help"
// when argv[1] names a test or a command (matrix, report, ...), else
// "xfer --help".
std::string HelpCommandFor(int argc, const char* const* argv);

Result<ParsedCommand> ParseCommandLine(int argc, const char* const* argv,
                                       const ParserConfig& config = {});

}  // namespace xfer::cli

#endif  // XFER_CLI_FLAGS_H_
