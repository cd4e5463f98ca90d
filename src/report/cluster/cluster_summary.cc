#include "report/cluster/cluster_summary.h"

#include <algorithm>

namespace xfer::report {
namespace {

using matrix::CellStatus;

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

size_t DirectionIndex(const cluster::ClusterRun& run, const matrix::Direction& direction) {
  const auto& directions = run.config.matrix.directions;
  return static_cast<size_t>(std::find(directions.begin(), directions.end(), direction) -
                             directions.begin());
}

HeatMap MapOf(const cluster::ClusterRun& run, size_t direction, uint64_t block) {
  const size_t ranks = run.ranks.size();
  HeatMap map;
  map.direction = direction;
  map.block_size = block;
  map.gbps.resize(ranks);
  for (auto& row : map.gbps) row.resize(ranks);
  std::vector<PairFigure> pairs;
  for (const cluster::PairCell& pair : run.cells) {
    const matrix::CellResult& cell = pair.cell;
    if (cell.status != CellStatus::kOk || cell.block_size != block ||
        DirectionIndex(run, cell.direction) != direction) {
      continue;
    }
    if (pair.flow.source >= ranks || pair.flow.target >= ranks) continue;
    map.gbps[pair.flow.source][pair.flow.target] = cell.median_gbps;
    pairs.push_back({pair.flow.source, pair.flow.target, cell.median_gbps, 0});
  }
  std::vector<double> medians;
  for (const PairFigure& figure : pairs) medians.push_back(figure.median_gbps);
  map.median_of_pairs = Median(medians);
  for (PairFigure& figure : pairs) {
    figure.gap_to_median =
        map.median_of_pairs > 0 ? (figure.median_gbps - map.median_of_pairs) / map.median_of_pairs
                                : 0;
  }
  std::stable_sort(pairs.begin(), pairs.end(), [](const PairFigure& a, const PairFigure& b) {
    return a.median_gbps < b.median_gbps;
  });
  // Slow means below the median: a pair at or above it is not named, even
  // when fewer than kSlowestPairs are below.
  const auto above = std::find_if(pairs.begin(), pairs.end(), [&map](const PairFigure& figure) {
    return figure.median_gbps >= map.median_of_pairs;
  });
  pairs.erase(above, pairs.end());
  pairs.resize(std::min(pairs.size(), kSlowestPairs));
  map.slowest = std::move(pairs);
  return map;
}

}  // namespace

ClusterSummary SummarizeCluster(const cluster::ClusterRun& run) {
  ClusterSummary summary;
  const auto& config = run.config.matrix;
  for (size_t d = 0; d < config.directions.size(); ++d) {
    for (uint64_t block : config.block_sizes) summary.heat_maps.push_back(MapOf(run, d, block));
  }
  for (size_t i = 0; i < run.cells.size();) {
    const cluster::PairCell& head = run.cells[i];
    StepAggregate aggregate;
    aggregate.step = head.step;
    aggregate.round = head.round;
    aggregate.direction = DirectionIndex(run, head.cell.direction);
    aggregate.block_size = head.cell.block_size;
    size_t j = i;
    for (; j < run.cells.size() && run.cells[j].step == head.step &&
           run.cells[j].cell.block_size == head.cell.block_size &&
           run.cells[j].cell.direction == head.cell.direction;
         ++j) {
      const matrix::CellResult& cell = run.cells[j].cell;
      ++aggregate.flows;
      if (cell.status != CellStatus::kOk) continue;
      aggregate.slowest_gbps = aggregate.measured == 0
                                   ? cell.median_gbps
                                   : std::min(aggregate.slowest_gbps, cell.median_gbps);
      ++aggregate.measured;
      aggregate.sum_gbps += cell.median_gbps;
    }
    summary.aggregates.push_back(aggregate);
    i = j;
  }
  return summary;
}

}  // namespace xfer::report
