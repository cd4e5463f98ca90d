// `xfer`: parse the command line, run the benchmark, print perftest's
// tables (or list the RDMA devices for `xfer devices`). Exit status: 0
// success, 1 the run failed, 2 usage error.
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "perftest/run_benchmark.h"
#include "report/console_reporter.h"
#include "report/device_report.h"
#include "report/json_report.h"
#include "verbs/device_catalog.h"

namespace {

// `xfer devices`: the listing on stdout; exit 1 when there is no device
// (with the reason on stderr), -d names none, or the listing fails.
int RunDevices(const xfer::cli::DevicesRequest& request) {
  auto devices = xfer::verbs::ListDevices();
  if (!devices.ok()) {
    std::fprintf(stderr, "xfer: devices: %s\n", devices.status().ToString().c_str());
    return 1;
  }
  if (devices->empty()) {
    std::fprintf(stderr, "xfer: devices: %s\n", xfer::verbs::ExplainNoDevices().c_str());
    return 1;
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
    return 1;
  }
  std::fputs(xfer::report::DeviceReportText(shown).c_str(), stdout);
  if (!request.json_path.empty()) {
    xfer::Status json = xfer::report::WriteJsonFile(request.json_path,
                                                    xfer::report::DeviceReportJson(shown));
    if (!json.ok()) {
      std::fprintf(stderr, "xfer: --json: %s\n", json.ToString().c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  xfer::cli::ParserConfig config;
  config.transports = {"shm", "tcp", "verbs"};
  auto command = xfer::cli::ParseCommandLine(argc, argv, config);
  if (!command.ok()) {
    std::fprintf(stderr, "xfer: %s\n", command.status().message().c_str());
    std::fprintf(stderr, "Try 'xfer --help'.\n");
    return command.status().code() == xfer::StatusCode::kInvalidArgument ? 2 : 1;
  }
  if (command->action == xfer::cli::ParsedCommand::Action::kDevices) {
    return RunDevices(command->devices);
  }
  if (command->action != xfer::cli::ParsedCommand::Action::kRun) {
    std::fputs(command->help_text.c_str(), stdout);
    return 0;
  }
  const xfer::bench::BenchParams& params = command->params;
  for (const auto& note : params.notes) std::fprintf(stderr, "xfer: note: %s\n", note.c_str());

  xfer::report::ConsoleReporter reporter(params, stdout);
  xfer::Status status = xfer::perftest::RunBenchmark(params, reporter);
  reporter.Finish();
  if (xfer::Status json = reporter.WriteJson(params.json_path); !json.ok()) {
    std::fprintf(stderr, "xfer: --json: %s\n", json.ToString().c_str());
    if (status.ok()) status = json;
  }
  if (!status.ok()) {
    std::fprintf(stderr, "xfer: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
