// `xfer`: parse the command line, run the benchmark, print perftest's
// tables (or list the RDMA devices for `xfer devices`, run a bandwidth
// matrix for `xfer matrix`, or read runs back for `xfer report` and
// `xfer compare`). Exit status: 0
// success, 1 the run failed, 2 usage error.
#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "bench/cluster/cluster_rank.h"
#include "bench/cluster/cluster_schedule.h"
#include "bench/matrix/loopback_target.h"
#include "bench/matrix/matrix_initiator.h"
#include "bench/matrix/matrix_target.h"
#include "cli/file_uses.h"
#include "cli/flags.h"
#include "cli/version.h"
#include "common/build_options.h"
#include "common/exit_status.h"
#include "common/output_file.h"
#include "common/socket.h"
#include "common/stop_signal.h"
#include "doctor/doctor_command.h"
#include "launch/run_benchmark.h"
#if XFER_WITH_MPI
#include "launch/mpi_bootstrap.h"
#endif
#if XFER_WITH_VERBS
#include "report/device_report.h"
#include "verbs/device_catalog.h"
#endif
#include "report/cluster/cluster_reporter.h"
#include "report/compare.h"
#include "report/console_reporter.h"
#include "report/html/html_report.h"
#include "report/json_report.h"
#include "report/markdown_report.h"
#include "report/matrix/host_probe.h"
#include "report/matrix/matrix_reporter.h"
#include "report/run_document.h"
#include "xfer/engine.h"

namespace {

// `xfer devices`: the listing on stdout; exit 1 when there is no device
// (with the reason on stderr, and in --json as an empty list with a
// "reason"), -d names none, or the listing fails; exit 2 when --json cannot
// be written.
int RunDevices(const xfer::cli::DevicesRequest& request) {
#if !XFER_WITH_VERBS
  (void)request;  // nothing to list, and so no file to write
  std::fprintf(stderr,
               "xfer: devices: this build has no RDMA verbs: it was configured with "
               "XFER_VERBS=OFF or without rdma-core (Debian: libibverbs-dev); rebuild with it "
               "to list RDMA devices\n");
  return xfer::kExitFailed;
#else
  if (!request.json_path.empty()) {
    if (xfer::Status json = xfer::report::CheckJsonWritable(request.json_path); !json.ok()) {
      std::fprintf(stderr, "xfer: --json: %s\n", json.message().c_str());
      return xfer::kExitUsage;
    }
  }
  auto devices = xfer::verbs::ListDevices();
  if (!devices.ok()) {
    std::fprintf(stderr, "xfer: devices: %s\n", devices.status().ToString().c_str());
    return xfer::kExitFailed;
  }
  if (devices->empty()) {
    const std::string why = xfer::verbs::ExplainNoDevices();
    std::fprintf(stderr, "xfer: devices: %s\n", why.c_str());
    // The file still says what was found, and why: nothing.
    if (!request.json_path.empty()) {
      nlohmann::json document = xfer::report::DeviceReportJson({});
      document["reason"] = why;
      if (xfer::Status json = xfer::report::WriteJsonFile(request.json_path, document); !json.ok()) {
        std::fprintf(stderr, "xfer: --json: %s\n", json.ToString().c_str());
      }
    }
    return xfer::kExitFailed;
  }
  std::vector<xfer::verbs::DeviceInfo> shown;
  std::vector<std::string> names;
  for (auto& device : *devices) {
    names.push_back(device.name);
    if (request.device.empty() || device.name == request.device) shown.push_back(device);
  }
  if (shown.empty()) {
    std::fprintf(stderr, "xfer: devices: no RDMA device named '%s' (have: %s)\n",
                 request.device.c_str(), fmt::format("{}", fmt::join(names, ", ")).c_str());
    return xfer::kExitFailed;
  }
  std::fputs(xfer::report::DeviceReportText(shown).c_str(), stdout);
  if (!request.json_path.empty()) {
    xfer::Status json = xfer::report::WriteJsonFile(request.json_path,
                                                    xfer::report::DeviceReportJson(shown));
    if (!json.ok()) {
      std::fprintf(stderr, "xfer: --json: %s\n", json.ToString().c_str());
      return xfer::kExitFailed;
    }
  }
  return xfer::kExitOk;
#endif
}

// `xfer doctor`: the findings on stdout; exit 1 on a bad --run file, no
// device, or an unwritable --json (doctor/doctor_command.h).
int RunDoctor(const xfer::cli::DoctorRequest& request) {
  xfer::doctor::DoctorOptions options;
  options.device = request.device;
  if (request.port > 0) options.port = request.port;
  options.run_path = request.run_path;
  options.sysfs_root = request.sysfs_root;
  options.nic_map_path = request.nic_map_path;
  return xfer::doctor::RunDoctorCommand(options, request.json_path, stdout, stderr);
}

int Fail(const char* what, const xfer::Status& status) {
  std::fprintf(stderr, "xfer: %s: %s\n", what, status.ToString().c_str());
  return xfer::kExitFailed;
}

// `xfer matrix` as the target: serves one initiator, prints only its
// waiting line and errors.
int RunMatrixTarget(const xfer::matrix::MatrixConfig& config,
                    const xfer::matrix::HostFingerprint& fingerprint) {
  auto listener = xfer::Listener::Bind({"0.0.0.0", config.port}, 1);
  if (!listener.ok()) return Fail("matrix target", listener.status().WithContext("control port"));
  xfer::Status status =
      xfer::matrix::RunMatrixTarget(config, fingerprint, *listener, [](const std::string& line) {
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
      });
  return status.ok() ? 0 : Fail("matrix target", status);
}

// `xfer matrix` as the initiator, or both roles with --loopback. Exit
// status: 0, 1 on failure, 128+signal when interrupted.
int RunMatrix(const xfer::matrix::MatrixConfig& config) {
  const xfer::matrix::HostFingerprint fingerprint =
      xfer::report::ProbeHost(xfer::cli::XferVersion());
  if (config.role == xfer::matrix::Role::kTarget) return RunMatrixTarget(config, fingerprint);

  // A file written to stdout ("-") has stdout to itself: the tables go to
  // stderr then.
  const bool file_on_stdout =
      config.json_path == "-" || config.csv_path == "-" || config.markdown_path == "-";
  xfer::report::MatrixReporter reporter(file_on_stdout ? stderr : stdout, stderr,
                                        isatty(STDERR_FILENO) == 1 && !config.quiet);
  if (xfer::Status prepared = reporter.Prepare(config); !prepared.ok()) {
    Fail("matrix", prepared);
    return xfer::kExitUsage;  // an output that cannot be written, before anything ran
  }
  xfer::matrix::MatrixConfig run = config;
  std::optional<xfer::matrix::LoopbackTarget> target;
  if (config.role == xfer::matrix::Role::kLoopback) {
    // Forked before this process starts any thread (StopSignal's included).
    auto launched = xfer::matrix::LoopbackTarget::Launch(config, fingerprint);
    if (!launched.ok()) return Fail("matrix", launched.status());
    target.emplace(std::move(*launched));
    run.host = "127.0.0.1";
    run.port = target->port();
  }
  xfer::StopSignal stop;
  xfer::Status status = xfer::matrix::RunMatrixInitiator(run, fingerprint, reporter, stop.flag());
  if (target) status = target->Finish(status, config.timeout);
  if (xfer::Status files = reporter.status(); status.ok() && !files.ok()) status = files;
  if (!status.ok()) {
    Fail("matrix", status);
    return stop.signal() != 0 ? xfer::kExitSignalBase + stop.signal() : xfer::kExitFailed;
  }
  return xfer::kExitOk;
}

// `mpirun -np N xfer matrix --scheme ...`: one rank of the cluster matrix.
// Rank 0 prints the plan, the groups and the tables and writes --json.
// Exit status: 0 when every rank finished; otherwise this rank prints its
// error and ends every rank through mpirun (MPI_Abort) with 1, since
// MPI_Finalize would wait for a rank that is gone.
int RunCluster(const xfer::cluster::ClusterConfig& config) {
#if !XFER_WITH_MPI
  (void)config;
  std::fprintf(stderr,
               "xfer: matrix: --scheme: this build has no MPI: install libopenmpi-dev "
               "openmpi-bin and rebuild\n");
  return 2;
#else
  if (!xfer::launch::MpiBootstrap::LaunchedAsRank()) {
    std::fprintf(stderr,
                 "xfer: matrix: --scheme: the cluster matrix runs as ranks under mpirun (or srun): "
                 "mpirun -np N xfer matrix --scheme ...\n");
    return xfer::kExitUsage;
  }
  // Before MPI_Init: MPI starts threads, and StopSignal's mask must be
  // theirs too.
  xfer::StopSignal stop;
  auto bootstrap = xfer::launch::MpiBootstrap::Init();
  if (!bootstrap.ok()) return Fail("matrix", bootstrap.status());
  // A schedule the ranks cannot run (too few ranks, a root outside them) is
  // bad usage, and every rank sees it alike: rank 0 says so once, and all
  // leave MPI cleanly with 2, no MPI_Abort.
  if (auto plan = xfer::cluster::PlanSteps(config.scheme, (*bootstrap)->size(), config.root());
      !plan.ok()) {
    if ((*bootstrap)->rank() == 0) {
      std::fprintf(stderr, "xfer: matrix: %s\n", plan.status().message().c_str());
    }
    (*bootstrap)->Finalize();
    return xfer::kExitUsage;
  }
  const xfer::matrix::HostFingerprint fingerprint =
      xfer::report::ProbeHost(xfer::cli::XferVersion());
  const bool root = (*bootstrap)->rank() == 0;
  xfer::report::ClusterReporter reporter(root ? stdout : nullptr, root ? stderr : nullptr,
                                         root ? config.matrix.json_path : std::string(),
                                         root ? config.matrix.csv_path : std::string());
  xfer::Status status = reporter.Prepare();
  if (status.ok()) {
    status = xfer::cluster::RunClusterRank(config, **bootstrap, fingerprint, reporter, stop.flag());
  }
  if (xfer::Status files = reporter.status(); status.ok() && !files.ok()) status = files;
  if (status.ok()) {
    (*bootstrap)->Finalize();
    return 0;
  }
  std::fprintf(stderr, "xfer: matrix: rank %u (%s): %s\n", (*bootstrap)->rank(),
               fingerprint.hostname.c_str(), status.ToString().c_str());
  std::fflush(stderr);
  std::fflush(stdout);
  (*bootstrap)->AbortAll(stop.signal() != 0 ? 128 + stop.signal() : 1);
#endif
}

// Every file is read and checked before anything is written, so a bad
// input leaves no output behind.
int RunReport(const xfer::cli::ReportRequest& request) {
  if (!request.output.empty()) {
    if (xfer::Status writable = xfer::PrepareOutput(request.output).status(); !writable.ok()) {
      std::fprintf(stderr, "xfer: report: -o/--output: %s\n", writable.message().c_str());
      return xfer::kExitUsage;
    }
  }
  std::vector<xfer::report::RunDocument> runs;
  for (const std::string& path : request.runs) {
    auto run = xfer::report::LoadRunDocument(path);
    if (!run.ok()) {
      std::fprintf(stderr, "xfer: report: %s\n", run.status().message().c_str());
      return xfer::kExitFailed;
    }
    runs.push_back(std::move(*run));
  }
  const std::string text = request.markdown ? xfer::report::RenderMarkdownReport(runs)
                                            : xfer::report::RenderHtmlReport(runs);
  if (request.output.empty()) {
    std::fputs(text.c_str(), stdout);
    return xfer::kExitOk;
  }
  if (xfer::Status written = xfer::WriteOutputFile(request.output, text); !written.ok()) {
    std::fprintf(stderr, "xfer: report: -o/--output: %s\n", written.message().c_str());
    return xfer::kExitFailed;
  }
  return xfer::kExitOk;
}

int RunCompare(const xfer::cli::CompareRequest& request) {
  auto a = xfer::report::LoadRunDocument(request.a);
  auto b = a.ok() ? xfer::report::LoadRunDocument(request.b) : a;
  auto comparison = b.ok() ? xfer::report::CompareRuns(*a, *b)
                           : xfer::Result<xfer::report::Comparison>(b.status());
  if (!comparison.ok()) {
    std::fprintf(stderr, "xfer: compare: %s\n", comparison.status().message().c_str());
    return xfer::kExitFailed;
  }
  std::fputs(xfer::report::RenderComparison(*comparison).c_str(), stdout);
  return xfer::kExitOk;
}

int RunCommand(int argc, char** argv) {
  xfer::cli::ParserConfig config;
  config.transports = xfer::BuiltinTransports();
  config.perftest_transport = xfer::launch::PerftestTransport();
  config.transport_options = xfer::BuiltinTransportOptions();
  config.host_has_rdma_device = [] {
#if XFER_WITH_VERBS
    auto devices = xfer::verbs::ListDevices();
    return devices.ok() && !devices->empty();
#else
    return false;
#endif
  };
  auto command = xfer::cli::ParseCommandLine(argc, argv, config);
  if (!command.ok()) {
    const std::string message = command.status().message();
    std::fprintf(stderr, "xfer: %s\n", message.c_str());
    // One pointer to help, to the command's own screen: the message may
    // already name it.
    if (message.find("--help'") == std::string::npos) {
      std::fprintf(stderr, "Try '%s'.\n", xfer::cli::HelpCommandFor(argc, argv).c_str());
    }
    return command.status().code() == xfer::StatusCode::kInvalidArgument ? xfer::kExitUsage
                                                                           : xfer::kExitFailed;
  }
  // One rule for every command, before anything runs: no output over an
  // input.
  if (xfer::Status spared = xfer::cli::CheckOutputsSpareInputs(xfer::cli::FileUsesOf(*command));
      !spared.ok()) {
    std::fprintf(stderr, "xfer: %s\n", spared.message().c_str());
    return xfer::kExitUsage;
  }
  if (command->action == xfer::cli::ParsedCommand::Action::kDevices) {
    return RunDevices(command->devices);
  }
  if (command->action == xfer::cli::ParsedCommand::Action::kDoctor) {
    return RunDoctor(command->doctor);
  }
  if (command->action == xfer::cli::ParsedCommand::Action::kMatrix) {
    return RunMatrix(command->matrix);
  }
  if (command->action == xfer::cli::ParsedCommand::Action::kCluster) {
    return RunCluster(command->cluster);
  }
  if (command->action == xfer::cli::ParsedCommand::Action::kReport) {
    return RunReport(command->report);
  }
  if (command->action == xfer::cli::ParsedCommand::Action::kCompare) {
    return RunCompare(command->compare);
  }
  if (command->action != xfer::cli::ParsedCommand::Action::kRun) {
    std::fputs(command->help_text.c_str(), stdout);
    return xfer::kExitOk;
  }
  const xfer::bench::BenchParams& params = command->params;
  // Before anything runs: a long -a or -D run must not be lost to a typo.
  if (!params.json_path.empty()) {
    if (xfer::Status json = xfer::report::CheckJsonWritable(params.json_path); !json.ok()) {
      std::fprintf(stderr, "xfer: --json: %s\n", json.message().c_str());
      return xfer::kExitUsage;
    }
  }
  for (const auto& note : params.notes) std::fprintf(stderr, "xfer: note: %s\n", note.c_str());

  // `--json -` puts the document on stdout, alone, so that it pipes into
  // jq; the table goes to stderr then.
  xfer::report::ConsoleReporter reporter(params, params.json_path == "-" ? stderr : stdout);
  auto prepared = xfer::launch::PreparedBenchmark::Prepare(params, reporter);
  if (!prepared.ok()) {
    std::fprintf(stderr, "xfer: %s\n", prepared.status().ToString().c_str());
    return xfer::kExitFailed;
  }
  // After the loopback server's fork: the child must not inherit the
  // watcher thread, and learns of an interrupt from the client.
  xfer::StopSignal stop;
  xfer::Status status = prepared->Run(reporter, stop.flag());
  reporter.Finish();
  const int code = !status.ok() && stop.signal() != 0 ? xfer::kExitSignalBase + stop.signal()
                   : !status.ok()                    ? xfer::kExitFailed
                                                     : xfer::kExitOk;
  if (!status.ok()) std::fprintf(stderr, "xfer: %s\n", status.ToString().c_str());
  // Written on every way out, a failed or interrupted run too: its outcome
  // says what happened, so an older file never passes for this run.
  if (!params.json_path.empty()) {
    nlohmann::json provenance = xfer::report::RunProvenanceJson(
        params.command_line, xfer::report::ProbeHost(xfer::cli::XferVersion()));
    provenance.update(xfer::report::RunOutcomeJson(status, stop.signal()));
    if (xfer::Status json = reporter.WriteJson(params.json_path, provenance); !json.ok()) {
      std::fprintf(stderr, "xfer: --json: %s\n", json.ToString().c_str());
      return code == xfer::kExitOk ? xfer::kExitFailed : code;
    }
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  const int code = RunCommand(argc, argv);
  // What went to standard output reached it: a full disk or a closed pipe
  // fails the command instead of ending it with 0.
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    std::fprintf(stderr, "xfer: writing standard output: %s\n",
                 errno != 0 ? std::strerror(errno) : "failed");
    return code == xfer::kExitOk ? xfer::kExitFailed : code;
  }
  return code;
}
