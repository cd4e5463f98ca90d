// What rank 0 of a cluster matrix reports as the run goes: the plan before
// any cell, each group of cells as its ranks report it, and the end. The
// report layer implements it (report/cluster/cluster_reporter.h); other
// ranks report nothing.
#ifndef XFER_BENCH_CLUSTER_CLUSTER_OBSERVER_H_
#define XFER_BENCH_CLUSTER_CLUSTER_OBSERVER_H_

#include <cstddef>

#include "bench/cluster/cluster_run.h"

namespace xfer::cluster {

class ClusterObserver {
 public:
  virtual ~ClusterObserver() = default;
  // Every rank is known and the cells are planned (all kNotRun).
  virtual void OnPlan(const ClusterRun& run) = 0;
  // Cells [first, first + count) of run.cells are final.
  virtual void OnGroupDone(const ClusterRun& run, size_t first, size_t count) = 0;
  // The run ended; run.outcome and run.error say how. Called once the plan
  // was made, whatever happened after.
  virtual void OnFinish(const ClusterRun& run) = 0;
};

}  // namespace xfer::cluster

#endif  // XFER_BENCH_CLUSTER_CLUSTER_OBSERVER_H_
