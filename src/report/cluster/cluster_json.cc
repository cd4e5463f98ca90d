#include "report/cluster/cluster_json.h"

#include <algorithm>
#include <string>

#include "bench/matrix/block_size.h"
#include "bench/matrix/cell_statistic.h"
#include "report/cluster/cluster_summary.h"
#include "report/matrix/matrix_json.h"

namespace xfer::report {
namespace {

using nlohmann::json;
using matrix::CellStatus;

json OrNull(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

json GbpsOrNull(const matrix::CellResult& cell, double value) {
  return cell.status == CellStatus::kOk ? json(value) : json(nullptr);
}

json ConfigJson(const cluster::ClusterRun& run) {
  const cluster::ClusterConfig& config = run.config;
  const matrix::MatrixConfig& m = config.matrix;
  json directions = json::array();
  for (const matrix::Direction& direction : m.directions) directions.push_back(direction.Name());
  return {{"scheme", cluster::SchemeName(config.scheme)},
          {"ranks", run.ranks.size()},
          {"incast_target", config.scheme == cluster::Scheme::kIncast
                                ? json(config.incast_target) : json(nullptr)},
          {"fan_out_source", config.scheme == cluster::Scheme::kFanOut
                                 ? json(config.fan_out_source) : json(nullptr)},
          {"directions", directions},
          {"transport", m.transports.empty() ? json(nullptr) : json(m.transports.front())},
          {"block_sizes", m.block_sizes},
          {"transfer_size", m.transfer_size},
          {"batch", m.batch},
          {"loops", m.loops},
          {"warmup", m.warmup},
          {"streams", m.streams},
          {"memory", m.memory},
          {"remote_memory", m.remote_memory},
          {"timeout_s", static_cast<double>(m.timeout.count()) / 1000.0},
          {"rank_devices", config.rank_devices}};
}

json CellJson(const cluster::ClusterRun& run, const cluster::PairCell& pair) {
  const matrix::CellResult& cell = pair.cell;
  json gbps = json::array();
  for (double seconds : cell.sample_seconds) {
    gbps.push_back(seconds > 0 ? json(matrix::GigabytesPerSecond(run.config.matrix.transfer_size,
                                                                  seconds))
                               : json(nullptr));
  }
  // Rounds and steps count from 1, as the terminal and the CSV say them.
  return {{"step", pair.step + 1},
          {"round", pair.round + 1},
          {"source", pair.flow.source},
          {"target", pair.flow.target},
          {"direction", cell.direction.Name()},
          {"op", cell.direction.op == OpCode::kWrite ? "write" : "read"},
          {"block_size", cell.block_size},
          {"block_label", matrix::BlockLabel(cell.block_size)},
          {"entries_per_sample", cell.entries},
          {"requests", cell.requests},
          {"status", matrix::CellStatusName(cell.status)},
          {"reason", OrNull(cell.reason)},
          {"transport", OrNull(cell.path_transport)},
          {"warmup_seconds", cell.warmup_seconds},
          {"sample_seconds", cell.sample_seconds},
          {"sample_gbps", gbps},
          {"median_gbps", GbpsOrNull(cell, cell.median_gbps)},
          {"min_gbps", GbpsOrNull(cell, cell.min_gbps)},
          {"max_gbps", GbpsOrNull(cell, cell.max_gbps)}};
}

json HeatMapJson(const cluster::ClusterRun& run, const HeatMap& map) {
  json rows = json::array();
  for (const auto& row : map.gbps) {
    json values = json::array();
    for (const auto& value : row) values.push_back(value ? json(*value) : json(nullptr));
    rows.push_back(std::move(values));
  }
  json slowest = json::array();
  for (const PairFigure& figure : map.slowest) {
    slowest.push_back({{"source", figure.source},
                       {"target", figure.target},
                       {"median_gbps", figure.median_gbps},
                       {"gap_to_median", figure.gap_to_median}});
  }
  return {{"direction", run.config.matrix.directions[map.direction].Name()},
          {"block_size", map.block_size},
          {"block_label", matrix::BlockLabel(map.block_size)},
          {"gbps", rows},
          {"median_of_pairs_gbps",
           map.slowest.empty() ? json(nullptr) : json(map.median_of_pairs)},
          {"slowest", slowest}};
}

json CostsJson(const cluster::ClusterRun& run) {
  std::vector<double> meetings = run.meeting_seconds;
  std::sort(meetings.begin(), meetings.end());
  json median = nullptr;
  if (!meetings.empty()) {
    const size_t mid = meetings.size() / 2;
    median = meetings.size() % 2 == 1 ? meetings[mid] : (meetings[mid - 1] + meetings[mid]) / 2;
  }
  return {{"exchange_seconds", run.exchange_seconds},
          {"meeting_seconds_median", median},
          {"meeting_seconds_max", meetings.empty() ? json(nullptr) : json(meetings.back())},
          {"meetings", meetings.size()}};
}

}  // namespace

json ClusterJson(const cluster::ClusterRun& run) {
  const ClusterSummary summary = SummarizeCluster(run);
  json ranks = json::array();
  for (const cluster::RankInfo& rank : run.ranks) {
    ranks.push_back({{"rank", rank.rank},
                     {"local_rank", rank.local_rank},
                     {"host", HostFingerprintJson(rank.host)},
                     {"engine_address", rank.engine_address},
                     {"rdma_device", OrNull(rank.rdma_device)},
                     {"registered_bytes", rank.registered_bytes},
                     {"max_rss_bytes", rank.max_rss_bytes}});
  }
  json steps = json::array();
  for (const cluster::Step& step : run.steps) {
    json flows = json::array();
    for (const cluster::Flow& flow : step.flows) flows.push_back({flow.source, flow.target});
    steps.push_back({{"round", step.round + 1}, {"flows", flows}});
  }
  json cells = json::array();
  for (const cluster::PairCell& pair : run.cells) cells.push_back(CellJson(run, pair));
  json maps = json::array();
  for (const HeatMap& map : summary.heat_maps) maps.push_back(HeatMapJson(run, map));
  json aggregates = json::array();
  for (const StepAggregate& a : summary.aggregates) {
    aggregates.push_back({{"step", a.step + 1},
                          {"round", a.round + 1},
                          {"direction", run.config.matrix.directions[a.direction].Name()},
                          {"block_size", a.block_size},
                          {"flows", a.flows},
                          {"measured", a.measured},
                          {"sum_gbps", a.sum_gbps},
                          {"slowest_gbps", a.measured > 0 ? json(a.slowest_gbps) : json(nullptr)}});
  }
  const std::string version = run.ranks.empty() ? "" : run.ranks.front().host.xfer_version;
  return {
      {"schema", {{"name", "xfer.cluster"}, {"version", kClusterJsonVersion}}},
      {"units",
       {{"bandwidth", "GB/s (10^9 bytes/s)"}, {"sizes", "bytes"}, {"times", "seconds"},
        {"memory", "bytes"}}},
      {"run",
       {{"command_line", run.config.matrix.command_line},
        {"xfer_version", version},
        {"start_time", run.start_time},
        {"end_time", OrNull(run.end_time)},
        {"outcome", matrix::RunOutcomeName(run.outcome)},
        {"error", OrNull(run.error)},
        {"launcher", "mpi"}}},
      {"config", ConfigJson(run)},
      {"ranks", ranks},
      {"plan", {{"rounds", cluster::RoundCount(run.steps)}, {"steps", steps}}},
      {"cells", cells},
      {"heat_maps", maps},
      {"aggregates", aggregates},
      {"costs", CostsJson(run)}};
}

}  // namespace xfer::report
