// The cluster matrix's bootstrap over MPI (Open MPI's mpirun starts the
// ranks): rank identity, the address exchange and the meetings between
// cells, all point to point through rank 0 with non-blocking calls polled
// against a deadline, so a dead or stalled rank is named instead of hanging
// a collective. Rank 0 relays the exchange: O(N) messages and bytes there
// per meeting, which README's scaling section counts.
//
// MPI carries only these small messages; measured data moves over
// libxfer's transports.
#ifndef XFER_LAUNCH_MPI_BOOTSTRAP_H_
#define XFER_LAUNCH_MPI_BOOTSTRAP_H_

#include <mpi.h>

#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "bench/cluster/rank_bootstrap.h"
#include "xfer/status.h"

namespace xfer::launch {

class MpiBootstrap final : public cluster::RankBootstrap {
 public:
  // Whether a launcher started this process as a rank (mpirun, or srun with
  // PMI/PMIx): its environment says so. Without one, MPI_Init would start a
  // singleton with its own noise; the CLI refuses first.
  static bool LaunchedAsRank();

  // MPI_Init, with errors returned rather than fatal. Call it once per
  // process, after StopSignal exists (MPI starts threads of its own).
  // Errors: kFailedPrecondition (MPI could not start).
  static Result<std::unique_ptr<MpiBootstrap>> Init();

  // Leaves MPI without MPI_Finalize unless Finalize() ran: after a failure
  // a dead rank would keep MPI_Finalize waiting.
  ~MpiBootstrap() override = default;
  MpiBootstrap(const MpiBootstrap&) = delete;
  MpiBootstrap& operator=(const MpiBootstrap&) = delete;

  // After a run every rank finished: MPI_Finalize.
  void Finalize();

  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }
  uint32_t local_rank() const override { return local_rank_; }
  void NameRanks(std::vector<std::string> names) override { names_ = std::move(names); }
  Result<std::vector<std::string>> AllGather(const std::string& mine,
                                             std::chrono::milliseconds timeout,
                                             const std::atomic<int>& stop) override;
  Result<std::vector<std::string>> GatherToRoot(const std::string& mine,
                                                std::chrono::milliseconds silence,
                                                const std::atomic<int>& stop) override;
  Result<cluster::Release> Meet(const cluster::Release& release,
                                std::chrono::milliseconds timeout,
                                const std::atomic<int>& stop) override;
  void Heartbeat() override;
  [[noreturn]] void AbortAll(int exit_code) override;

 private:
  using Clock = std::chrono::steady_clock;

  // A send in flight: MPI reads `data` until `request` completes.
  struct PendingSend {
    std::string data;
    MPI_Request request = MPI_REQUEST_NULL;
  };

  MpiBootstrap(uint32_t rank, uint32_t size, uint32_t local_rank)
      : rank_(rank), size_(size), local_rank_(local_rank) {}

  std::string Name(uint32_t rank) const;
  Status Send(uint32_t to, int tag, std::string data);
  void ReapSends();
  // The next message of `tag` from `from`, if one has arrived. Errors:
  // kProtocolError (longer than a rank may send), kIoError.
  Result<bool> TryReceive(uint32_t from, int tag, std::string& out);
  // Polls TryReceive until it yields or `deadline` passes; `waiting_for`
  // completes the errors ("rank 0's verdict").
  Result<std::string> ReceiveBy(uint32_t from, int tag, Clock::time_point deadline,
                                std::chrono::milliseconds bound, const std::atomic<int>& stop,
                                const std::string& waiting_for);
  // The ranks among `pending` as a list of names: "rank 2 (b), rank 3 (c)".
  std::string NameList(const std::vector<uint32_t>& pending) const;

  const uint32_t rank_;
  const uint32_t size_;
  const uint32_t local_rank_;
  std::vector<std::string> names_;
  std::deque<PendingSend> sends_;
  Clock::time_point last_heartbeat_{};
  bool finalized_ = false;
};

}  // namespace xfer::launch

#endif  // XFER_LAUNCH_MPI_BOOTSTRAP_H_
