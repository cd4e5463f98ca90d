// One rank of a cluster matrix. Every rank runs this with the same config:
// it registers a source and a target buffer on its own engine, trades
// hellos (engine address, buffer, host) through the launcher, then walks
// the schedule group by group. In a group, the rank that is the source of
// a flow connects to its target (once per target, over libxfer, forced to
// the configured transport if one is named) and measures the cell as the
// two-host matrix does (bench/matrix/batch_sampler.h); every rank then
// reports to rank 0, which records the cells, and rank 0's verdict starts
// the next group. Measured data never moves through the launcher.
//
// Faults: a failed cell, a rank silent for longer than --timeout, a report
// that does not decode, or a stop signal ends the run: rank 0 names the
// rank and its host in run.error, keeps every finished cell, and the
// observer gets OnFinish; the caller then ends every rank through the
// launcher (RankBootstrap::AbortAll). A rank that lost rank 0 gives up
// within the longest a group can take ((warmup + loops + 2) x --timeout).
#ifndef XFER_BENCH_CLUSTER_CLUSTER_RANK_H_
#define XFER_BENCH_CLUSTER_CLUSTER_RANK_H_

#include <atomic>

#include "bench/cluster/cluster_config.h"
#include "bench/cluster/cluster_observer.h"
#include "bench/cluster/rank_bootstrap.h"
#include "bench/matrix/host_fingerprint.h"
#include "xfer/status.h"

namespace xfer::cluster {

// Runs this rank's part. `observer` is used on rank 0 only. Errors: the
// first failure as above (on rank 0 the run's error; elsewhere this rank's
// own failure or "rank 0 ended the run: ..."), Engine::Create's and
// allocation errors, the schedule's kInvalidArgument.
Status RunClusterRank(const ClusterConfig& config, RankBootstrap& bootstrap,
                      const matrix::HostFingerprint& local, ClusterObserver& observer,
                      const std::atomic<int>& stop);

}  // namespace xfer::cluster

#endif  // XFER_BENCH_CLUSTER_CLUSTER_RANK_H_
