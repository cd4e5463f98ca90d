// The terminal text of a cluster matrix, printed by rank 0: the plan before
// any cell, then the per-pair table, a heat map (source x target, GB/s) per
// direction and block size, each step's aggregate and the slowest pairs
// with their gap to the median pair. Pure functions; thread-safe.
#ifndef XFER_REPORT_CLUSTER_CLUSTER_TABLES_H_
#define XFER_REPORT_CLUSTER_CLUSTER_TABLES_H_

#include <string>

#include "bench/cluster/cluster_run.h"

namespace xfer::report {

// The ranks (host, engine address, device) and every round's steps, e.g.
//   round 1: 0->3 1->2, then 3->0 2->1
std::string RenderClusterPlan(const cluster::ClusterRun& run);

// One line for a finished group, for progress: "round 2/3 step 1/2 H2rH
// 1M: 2 flows, 9.81 GB/s in all, slowest 4.87 GB/s".
std::string RenderGroupLine(const cluster::ClusterRun& run, size_t first, size_t count);

// Everything after the run; ends with the run's error when it failed.
std::string RenderClusterTables(const cluster::ClusterRun& run);

// One line, no newline, for a run that did not complete: "the run failed:
// rank 2 (node-b): ..." or "the run was interrupted: ..."; "" otherwise.
std::string RenderClusterEnding(const cluster::ClusterRun& run);

}  // namespace xfer::report

#endif  // XFER_REPORT_CLUSTER_CLUSTER_TABLES_H_
