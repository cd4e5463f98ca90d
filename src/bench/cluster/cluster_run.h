// The whole of one cluster matrix run as rank 0 knows it: what was asked,
// every rank, the schedule and every cell. Reports render from this alone,
// at any point of the run: cells not reached yet are kNotRun.
#ifndef XFER_BENCH_CLUSTER_CLUSTER_RUN_H_
#define XFER_BENCH_CLUSTER_CLUSTER_RUN_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/cluster/cluster_config.h"
#include "bench/cluster/cluster_schedule.h"
#include "bench/matrix/cell_result.h"
#include "bench/matrix/host_fingerprint.h"
#include "bench/matrix/matrix_run.h"

namespace xfer::cluster {

struct RankInfo {
  uint32_t rank = 0;
  uint32_t local_rank = 0;
  matrix::HostFingerprint host;
  std::string engine_address;  // where its engine listens, "10.0.0.2:40123"
  std::string rdma_device;     // the -d it was given; "" = the first (or none)
  uint64_t buffer_address = 0; // its target buffer, in its address space
  uint64_t buffer_length = 0;
  // Measured costs of the rank, for the scaling estimate: the memory it
  // registered and its peak resident set, as its last report said.
  uint64_t registered_bytes = 0;
  uint64_t max_rss_bytes = 0;
};

// One measured (flow, direction, block) of one step.
struct PairCell {
  uint32_t step = 0;
  uint32_t round = 0;
  Flow flow;
  matrix::CellResult cell;
};

struct ClusterRun {
  ClusterConfig config;
  std::vector<RankInfo> ranks;
  std::vector<Step> steps;
  // Plan order: step, then direction, then block size, then the step's
  // flows. A group is one (step, direction, block): its flows run together
  // between two meetings of every rank.
  std::vector<PairCell> cells;
  std::string start_time;  // ISO 8601 UTC
  std::string end_time;    // "" while running
  matrix::RunOutcome outcome = matrix::RunOutcome::kRunning;
  std::string error;
  // Seconds rank 0 spent in the address exchange, and in each meeting
  // after a group (waiting for the slowest rank's report included).
  double exchange_seconds = 0;
  std::vector<double> meeting_seconds;

  size_t GroupCount() const {
    return steps.size() * config.matrix.directions.size() * config.matrix.block_sizes.size();
  }
};

}  // namespace xfer::cluster

#endif  // XFER_BENCH_CLUSTER_CLUSTER_RUN_H_
