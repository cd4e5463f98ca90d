#include "report/cluster/cluster_tables.h"

#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "bench/matrix/block_size.h"
#include "report/cluster/cluster_summary.h"

namespace xfer::report {
namespace {

using matrix::CellStatus;

// "1 round", "3 rounds".
std::string Count(size_t n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

// "blocks 64K..1M", or "block 64K" for one.
std::string Blocks(const std::vector<uint64_t>& sizes) {
  if (sizes.size() == 1) return "block " + matrix::BlockLabel(sizes.front());
  return fmt::format("blocks {}..{}", matrix::BlockLabel(sizes.front()),
                     matrix::BlockLabel(sizes.back()));
}

std::string Flows(const std::vector<cluster::Flow>& flows) {
  std::string text;
  for (const cluster::Flow& flow : flows) {
    if (!text.empty()) text += ' ';
    text += fmt::format("{}->{}", flow.source, flow.target);
  }
  return text;
}

std::string CellFigure(const matrix::CellResult& cell) {
  switch (cell.status) {
    case CellStatus::kOk: return fmt::format("{:.2f}", cell.median_gbps);
    case CellStatus::kUnsupported: return "n/a";
    case CellStatus::kFailed: return "failed";
    case CellStatus::kNotRun: return "-";
  }
  return "?";
}

std::string PairTable(const cluster::ClusterRun& run) {
  std::string out = fmt::format("{:>6} {:>6} {:>5} {:>9} {:>6} {:>9} {:>12} {:>9} {:>9}\n",
                                "source", "target", "round", "direction", "block", "transport",
                                "median GB/s", "min GB/s", "max GB/s");
  for (const cluster::PairCell& pair : run.cells) {
    const matrix::CellResult& cell = pair.cell;
    const bool ok = cell.status == CellStatus::kOk;
    out += fmt::format("{:>6} {:>6} {:>5} {:>9} {:>6} {:>9} {:>12} {:>9} {:>9}\n",
                       pair.flow.source, pair.flow.target, pair.round + 1,
                       cell.direction.Name(), matrix::BlockLabel(cell.block_size),
                       cell.path_transport.empty() ? "-" : cell.path_transport, CellFigure(cell),
                       ok ? fmt::format("{:.2f}", cell.min_gbps) : "",
                       ok ? fmt::format("{:.2f}", cell.max_gbps) : "");
  }
  return out;
}

std::string HeatMapText(const cluster::ClusterRun& run, const HeatMap& map) {
  std::string out = fmt::format(
      "heat map {} {} (GB/s; row: source, column: target; -: not measured)\n",
                                run.config.matrix.directions[map.direction].Name(),
                                matrix::BlockLabel(map.block_size));
  out += fmt::format("{:>8}", "");
  for (size_t t = 0; t < map.gbps.size(); ++t) out += fmt::format(" {:>7}", fmt::format("r{}", t));
  out += '\n';
  for (size_t s = 0; s < map.gbps.size(); ++s) {
    out += fmt::format("{:>8}", fmt::format("r{}", s));
    for (size_t t = 0; t < map.gbps[s].size(); ++t) {
      const auto& value = map.gbps[s][t];
      // A rank moves no data to itself: the diagonal is blank, not "-".
      out += fmt::format(" {:>7}", s == t ? "" : value ? fmt::format("{:.2f}", *value) : "-");
    }
    out += '\n';
  }
  if (!map.slowest.empty()) {
    out += fmt::format("  slowest pairs, below the median of pairs ({:.2f} GB/s):",
                       map.median_of_pairs);
    for (const PairFigure& figure : map.slowest) {
      out += fmt::format(" {}->{} {:.2f} ({:+.1f}%)", figure.source, figure.target,
                         figure.median_gbps, 100.0 * figure.gap_to_median);
    }
    out += '\n';
  }
  return out;
}

}  // namespace

std::string RenderClusterPlan(const cluster::ClusterRun& run) {
  const matrix::MatrixConfig& m = run.config.matrix;
  std::string directions;
  for (const matrix::Direction& direction : m.directions) {
    if (!directions.empty()) directions += ',';
    directions += direction.Name();
  }
  std::string out = fmt::format(
      "xfer matrix: {} over {}, {}, {}; {}; {}; {} per sample ({} bytes); transport {}\n",
      cluster::SchemeName(run.config.scheme), Count(run.ranks.size(), "rank"),
      Count(cluster::RoundCount(run.steps), "round"), Count(run.steps.size(), "step"), directions,
      Blocks(m.block_sizes), matrix::BlockLabel(m.transfer_size), m.transfer_size,
      m.transports.empty() ? "chosen per pair" : m.transports.front());
  for (const cluster::RankInfo& rank : run.ranks) {
    out += fmt::format("  rank {:>3}  {}  engine {}  rdma device {}\n", rank.rank,
                       rank.host.hostname, rank.engine_address,
                       rank.rdma_device.empty() ? "(default)" : rank.rdma_device);
  }
  for (size_t s = 0; s < run.steps.size();) {
    const uint32_t round = run.steps[s].round;
    std::string line = fmt::format("  round {}: {}", round + 1, Flows(run.steps[s].flows));
    for (++s; s < run.steps.size() && run.steps[s].round == round; ++s) {
      line += ", then " + Flows(run.steps[s].flows);
    }
    out += line + '\n';
  }
  return out;
}

std::string RenderGroupLine(const cluster::ClusterRun& run, size_t first, size_t count) {
  if (count == 0 || first + count > run.cells.size()) return "";
  const cluster::PairCell& head = run.cells[first];
  double sum = 0;
  double slowest = 0;
  uint32_t ok = 0;
  for (size_t i = first; i < first + count; ++i) {
    const matrix::CellResult& cell = run.cells[i].cell;
    if (cell.status != CellStatus::kOk) continue;
    slowest = ok == 0 ? cell.median_gbps : std::min(slowest, cell.median_gbps);
    sum += cell.median_gbps;
    ++ok;
  }
  return fmt::format("round {}/{} step {}: {} {}: {}, {} ok, {:.2f} GB/s in all, slowest "
                     "{:.2f} GB/s", head.round + 1, cluster::RoundCount(run.steps), head.step + 1,
                     head.cell.direction.Name(), matrix::BlockLabel(head.cell.block_size),
                     Count(count, "flow"), ok, sum, slowest);
}

std::string RenderClusterTables(const cluster::ClusterRun& run) {
  const ClusterSummary summary = SummarizeCluster(run);
  std::string out = fmt::format("\n{}", PairTable(run));
  for (const HeatMap& map : summary.heat_maps) out += fmt::format("\n{}", HeatMapText(run, map));
  out += fmt::format("\n{:>5} {:>5} {:>9} {:>6} {:>6} {:>14} {:>14}\n", "round", "step",
                     "direction", "block", "flows", "aggregate GB/s", "slowest GB/s");
  for (const StepAggregate& a : summary.aggregates) {
    out += fmt::format("{:>5} {:>5} {:>9} {:>6} {:>6} {:>14} {:>14}\n", a.round + 1, a.step + 1,
                       run.config.matrix.directions[a.direction].Name(),
                       matrix::BlockLabel(a.block_size), a.flows,
                       a.measured > 0 ? fmt::format("{:.2f}", a.sum_gbps) : "-",
                       a.measured > 0 ? fmt::format("{:.2f}", a.slowest_gbps) : "-");
  }
  out += "aggregate: the sum of the step's concurrent flows' medians; GB/s = 10^9 bytes/s\n";
  if (!run.error.empty()) out += fmt::format("\n{}\n", RenderClusterEnding(run));
  return out;
}

std::string RenderClusterEnding(const cluster::ClusterRun& run) {
  if (run.error.empty()) return "";
  const std::string_view outcome = matrix::RunOutcomeName(run.outcome);
  return fmt::format("the run {}: {}",
                     outcome == "interrupted" ? "was interrupted"
                     : outcome == "running"   ? "did not finish"
                                              : outcome,
                     run.error);
}

}  // namespace xfer::report
