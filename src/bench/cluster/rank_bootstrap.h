// What a cluster matrix needs from the launcher that started its ranks
// (Open MPI's mpirun: launch/mpi_bootstrap.h): who this rank is, one
// exchange of addresses, and a bounded meeting of every rank at rank 0
// between cells. It never carries measured data: that moves only over
// libxfer's transports.
//
// Every wait is bounded and polls `stop` (SIGINT/SIGTERM, StopSignal), so a
// dead or stalled rank ends the run with its name instead of a hang.
#ifndef XFER_BENCH_CLUSTER_RANK_BOOTSTRAP_H_
#define XFER_BENCH_CLUSTER_RANK_BOOTSTRAP_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "xfer/status.h"

namespace xfer::cluster {

// A verdict rank 0 hands every rank at the end of a meeting.
struct Release {
  bool go_on = true;
  std::string reason;  // when !go_on: why the run ends, as rank 0 says it
};

// Not thread-safe: one thread of a rank drives it.
class RankBootstrap {
 public:
  virtual ~RankBootstrap() = default;

  virtual uint32_t rank() const = 0;
  virtual uint32_t size() const = 0;
  // The rank among those on this host (OMPI_COMM_WORLD_LOCAL_RANK).
  virtual uint32_t local_rank() const = 0;

  // How errors name each rank from now on ("rank 2 (node-b)"), in rank
  // order; before this, "rank 2".
  virtual void NameRanks(std::vector<std::string> names) = 0;

  // Every rank's `mine`, in rank order, on every rank. Errors: kTimeout
  // naming the ranks that did not take part within `timeout`,
  // kFailedPrecondition naming the signal when `stop` was raised (every
  // wait below likewise), kIoError for the launcher's own failures.
  virtual Result<std::vector<std::string>> AllGather(const std::string& mine,
                                                     std::chrono::milliseconds timeout,
                                                     const std::atomic<int>& stop) = 0;

  // Every rank's `mine` reaches rank 0, which returns them in rank order
  // (other ranks get an empty vector). Rank 0 waits for each until that
  // rank has been silent (no Heartbeat, no report) for `silence`; the error
  // names the silent ranks (kTimeout). Other ranks send and return.
  virtual Result<std::vector<std::string>> GatherToRoot(const std::string& mine,
                                                        std::chrono::milliseconds silence,
                                                        const std::atomic<int>& stop) = 0;

  // Rank 0: tells every other rank `release`, best effort (a dead rank
  // cannot hear it). Others: waits up to `timeout` for rank 0's verdict.
  virtual Result<Release> Meet(const Release& release, std::chrono::milliseconds timeout,
                               const std::atomic<int>& stop) = 0;

  // A non-root rank tells rank 0 it is alive and busy measuring; cheap and
  // non-blocking, at most one message per `interval` of calls. No-op on
  // rank 0.
  virtual void Heartbeat() = 0;

  // Ends the run: the launcher stops every rank, with `exit_code`.
  [[noreturn]] virtual void AbortAll(int exit_code) = 0;
};

}  // namespace xfer::cluster

#endif  // XFER_BENCH_CLUSTER_RANK_BOOTSTRAP_H_
