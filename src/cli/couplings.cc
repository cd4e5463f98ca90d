#include "cli/couplings.h"

#include "bench/model/statistics.h"

#include <fmt/format.h>

#include <cmath>

namespace xfer::cli {
namespace {

using bench::BenchParams;

bool DurationMode(const BenchParams& params) { return params.duration_s > 0; }

// Combinations that are refused, and flags the chosen mode ignores.
Status CheckModes(ParseState& state) {
  BenchParams& params = state.params;
  if (params.all_sizes && DurationMode(params)) {
    return InvalidArgument("-a/--all cannot be combined with -D/--duration");
  }
  if (params.cuda_device && !params.cuda_bus_id.empty()) {
    return InvalidArgument(
        "--use_cuda and --use_cuda_bus_id both choose the GPU; give one of them");
  }
  if (params.cuda_dmabuf && !params.cuda_device && params.cuda_bus_id.empty()) {
    return InvalidArgument(
        "--use_cuda_dmabuf registers a CUDA buffer: choose the GPU with --use_cuda or "
        "--use_cuda_bus_id");
  }
  if (params.all_sizes && params.verb == bench::Verb::kAtomic) {
    return InvalidArgument(
        "-a/--all: not possible in atomic tests (their size is fixed at 8 "
        "bytes)");
  }
  if (DurationMode(params) &&
      (params.report_histogram || params.report_unsorted || params.report_cycles)) {
    return InvalidArgument(fmt::format(
        "{}: duration mode (-D) keeps no samples to report (perftest ignores it there); give "
        "-n instead",
        params.report_histogram  ? "-H/--report-histogrm"
        : params.report_unsorted ? "-U/--report-unsorted"
                                 : "-C/--report-cycles"));
  }
  if (params.numa_node >= 0 && !params.pin_cores.empty()) {
    return InvalidArgument("--numa_node and --pin_cores cannot be used together");
  }
  if (params.disable_numa && params.numa_node >= 0) {
    return InvalidArgument("--disable_numa and --numa_node: one leaves the process where it is, "
                           "the other moves it; give one");
  }
  if (DurationMode(params) && state.Given("iters")) {
    params.notes.push_back(fmt::format(
        "-n {}: ignored in duration mode (-D); the run counts completions",
        params.iterations));
  }
  if (!DurationMode(params) && state.Given("margin")) {
    params.notes.push_back(
        fmt::format("-f {}: ignored without -D/--duration", params.margin_s));
    params.margin_s = 0;
  }
  if (params.all_sizes && state.Given("size")) {
    params.notes.push_back(fmt::format(
        "-s {}: ignored with -a/--all (sizes 2..8388608)", params.size));
  }
  return Status::Ok();
}

// The margin perftest derives when -f is absent: floor(D / 4).
void ApplyDefaultMargin(const ParseState& state, BenchParams& params) {
  if (DurationMode(params) && !state.Given("margin")) {
    params.margin_s = std::floor(params.duration_s / 4);
  }
}

}  // namespace

Status ApplyCouplings(ParseState& state) {
  BenchParams& params = state.params;
  params.cq_mod_given = state.Given("cq-mod");
  params.size_given = state.Given("size");
  XFER_RETURN_IF_ERROR(CheckModes(state));
  ApplyDefaultMargin(state, params);
  // perftest's rules between -t, -Q, -l, -r, -n and -D live in one place,
  // bench::ResolveSettings; the parser only turns their refusals into usage
  // errors and stores the effective values. The bench prints the notices.
  if (DurationMode(params)) {
    auto window = bench::ResolveDurationWindow(params);
    if (!window.ok()) return window.status();
  }
  auto settings = bench::ResolveSettings(params, params.cq_mod_given);
  if (!settings.ok()) return settings.status();
  params.tx_depth = settings->tx_depth;
  params.cq_mod = settings->cq_mod;
  params.rx_depth = settings->rx_depth;
  return Status::Ok();
}

}  // namespace xfer::cli
