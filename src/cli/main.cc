// `xfer`: parse the command line, run the benchmark, print perftest's
// tables. Exit status: 0 success, 1 the run failed, 2 usage error.
#include <cstdio>

#include "bench/bench_runner.h"
#include "cli/flags.h"
#include "report/console_reporter.h"

int main(int argc, char** argv) {
  auto command = xfer::cli::ParseCommandLine(argc, argv);
  if (!command.ok()) {
    std::fprintf(stderr, "xfer: %s\n", command.status().message().c_str());
    std::fprintf(stderr, "Try 'xfer --help'.\n");
    return command.status().code() == xfer::StatusCode::kInvalidArgument ? 2 : 1;
  }
  if (command->action != xfer::cli::ParsedCommand::Action::kRun) {
    std::fputs(command->help_text.c_str(), stdout);
    return 0;
  }
  const xfer::bench::BenchParams& params = command->params;
  for (const auto& note : params.notes) std::fprintf(stderr, "xfer: note: %s\n", note.c_str());

  xfer::report::ConsoleReporter reporter(params, stdout);
  xfer::Status status = xfer::bench::RunBench(params, reporter);
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
