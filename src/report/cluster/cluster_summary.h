// What a cluster matrix's cells add up to: for each direction and block
// size, the source x target grid of medians (the heat map), each step's
// aggregate, and the slowest pairs with their gap to the median pair. A
// pure function of the run; the JSON, the terminal and `xfer report` all
// show these same numbers.
#ifndef XFER_REPORT_CLUSTER_CLUSTER_SUMMARY_H_
#define XFER_REPORT_CLUSTER_CLUSTER_SUMMARY_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "bench/cluster/cluster_run.h"

namespace xfer::report {

// One ordered pair's median in one (direction, block).
struct PairFigure {
  uint32_t source = 0;
  uint32_t target = 0;
  double median_gbps = 0;     // GB/s = 10^9 B/s
  double gap_to_median = 0;   // (pair median - median of pairs) / median of pairs
};

// The grid of one (direction, block): gbps[source][target], none where no
// cell of that pair finished ok.
struct HeatMap {
  size_t direction = 0;  // index into config.matrix.directions
  uint64_t block_size = 0;
  std::vector<std::vector<std::optional<double>>> gbps;
  double median_of_pairs = 0;  // over the pairs measured; 0 when none
  // The slowest measured pairs, slowest first, at most kSlowestPairs.
  std::vector<PairFigure> slowest;
};

// A step's concurrent flows in one (direction, block): the sum of their
// medians, which is what the flows moved together while all ran (they
// start at one barrier and each moves the same bytes).
struct StepAggregate {
  uint32_t step = 0;
  uint32_t round = 0;
  size_t direction = 0;
  uint64_t block_size = 0;
  uint32_t flows = 0;       // the step's flows
  uint32_t measured = 0;    // of them, finished ok
  double sum_gbps = 0;      // over the measured
  double slowest_gbps = 0;  // the slowest measured flow
};

inline constexpr size_t kSlowestPairs = 3;

struct ClusterSummary {
  std::vector<HeatMap> heat_maps;        // direction-major, blocks ascending
  std::vector<StepAggregate> aggregates;  // run order
};

ClusterSummary SummarizeCluster(const cluster::ClusterRun& run);

}  // namespace xfer::report

#endif  // XFER_REPORT_CLUSTER_CLUSTER_SUMMARY_H_
