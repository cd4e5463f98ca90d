#include "bench/cluster/cluster_rank.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "bench/cluster/listen_host.h"
#include "bench/cluster/rank_messages.h"
#include "bench/matrix/batch_sampler.h"
#include "bench/matrix/block_size.h"
#include "bench/matrix/cell_statistic.h"
#include "bench/matrix/matrix_engine.h"
#include "bench/matrix/memory_placement.h"
#include "bench/utc_time.h"
#include "common/socket.h"
#include "xfer/engine.h"

namespace xfer::cluster {
namespace {

using Clock = std::chrono::steady_clock;
using matrix::CellStatus;

uint64_t MaxRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A connection from this rank to a target rank, made on first use.
struct Connection {
  PeerId peer = 0;
  PeerInfo info;
};

class ClusterRank {
 public:
  ClusterRank(const ClusterConfig& config, RankBootstrap& bootstrap,
              const matrix::HostFingerprint& local, ClusterObserver& observer,
              const std::atomic<int>& stop)
      : config_(config), boot_(bootstrap), observer_(observer), stop_(stop) {
    run_.config = config;
    self_.rank = bootstrap.rank();
    self_.local_rank = bootstrap.local_rank();
    self_.host = local;
  }

  Status Run();

 private:
  bool root() const { return boot_.rank() == 0; }
  const matrix::MatrixConfig& matrix() const { return config_.matrix; }
  std::string Name(uint32_t rank) const;

  Status Prepare();
  // OK when this host has the RDMA device --rank_devices gives this rank;
  // else kNotFound naming it and the devices the host has.
  Status CheckRankDevice(const std::string& device) const;
  Status ExchangeHellos();
  void PlanCells();
  Status RunGroups();
  // Measures one flow. `beat`: tell rank 0 this rank is alive as it goes
  // (the launcher is driven by one thread: only the rank's own thread may).
  FlowReport Measure(uint64_t group, const Flow& flow, const matrix::Direction& direction,
                     uint64_t block, bool beat = true);
  // This rank's reports for one group: one per flow it is the source of,
  // several at once on threads of their own (fan-out's source), or one
  // unmeasured report when it is the source of none.
  std::vector<FlowReport> MeasureMine(uint64_t group, const Step& step,
                                      const matrix::Direction& direction, uint64_t block);
  Result<Connection*> ConnectTo(uint32_t target);
  // Rank 0: records the group's reports in run_.cells[first..first+count);
  // an error ends the run and says why.
  Status Absorb(const std::vector<std::string>& reports, uint64_t group, size_t first,
                size_t count);
  Status Finish(Status status);

  const ClusterConfig& config_;
  RankBootstrap& boot_;
  ClusterObserver& observer_;
  const std::atomic<int>& stop_;

  ClusterRun run_;
  RankInfo self_;
  std::unique_ptr<Engine> engine_;
  MemoryRegion source_;  // what this rank writes from and reads into
  MemoryRegion target_;  // what the others write into and read from
  std::map<uint32_t, Connection> connections_;
  bool planned_ = false;
};

std::string ClusterRank::Name(uint32_t rank) const {
  if (rank < run_.ranks.size()) {
    return fmt::format("rank {} ({})", rank, run_.ranks[rank].host.hostname);
  }
  return fmt::format("rank {}", rank);
}

Status ClusterRank::CheckRankDevice(const std::string& device) const {
  std::vector<std::string> present;
  for (const matrix::RdmaPortFingerprint& port : self_.host.rdma) {
    if (port.device == device) return Status::Ok();
    if (std::find(present.begin(), present.end(), port.device) == present.end()) {
      present.push_back(port.device);
    }
  }
  return NotFound(fmt::format(
      "--rank_devices: local rank {} on {} was given RDMA device '{}', which this host does not "
      "have ({})",
      self_.local_rank, self_.host.hostname, device,
      present.empty() ? "it has no RDMA device" : fmt::format("it has {}", fmt::join(present, ", "))));
}

Status ClusterRank::Prepare() {
  auto steps = PlanSteps(config_.scheme, boot_.size(), config_.root());
  if (!steps.ok()) return steps.status();
  run_.steps = std::move(*steps);

  matrix::MatrixConfig engine_config = matrix();
  if (!config_.rank_devices.empty()) {
    const size_t choice = self_.local_rank % config_.rank_devices.size();
    XFER_RETURN_IF_ERROR(CheckRankDevice(config_.rank_devices[choice]));
    engine_config.verbs.device = config_.rank_devices[choice];
    engine_config.transport_options = config_.rank_transport_options.at(choice);
  }
  self_.rdma_device = engine_config.verbs.device;
  std::string host = config_.listen_host;
  if (host.empty()) {
    auto found = DefaultListenHost();
    if (!found.ok()) return found.status();
    host = *found;
  }
  auto engine = matrix::CreateMatrixEngine(engine_config, fmt::format("rank {}", self_.rank),
                                           FormatHostPort({host, 0}));
  if (!engine.ok()) return engine.status().WithContext("this rank's engine");
  engine_ = std::move(*engine);
  self_.engine_address = engine_->listen_address();

  auto allocate = [&](const std::string& placement, MemoryRegion& out) -> Status {
    const matrix::MemoryPlacement* kind = matrix::FindPlacement(placement);
    if (kind == nullptr || !kind->engine_kind) {
      return NotSupported(fmt::format("{} memory: {}", placement,
                                      kind ? kind->unsupported : "not a memory kind"));
    }
    MemoryOptions options;
    options.kind = *kind->engine_kind;
    options.access = Access::kRemoteReadWrite;
    auto region = engine_->AllocateMemory(matrix().transfer_size, options);
    if (!region.ok()) {
      return region.status().WithContext(fmt::format("{} of {} memory",
                                                     matrix::BlockLabel(matrix().transfer_size),
                                                     placement));
    }
    out = *region;
    return Status::Ok();
  };
  XFER_RETURN_IF_ERROR(allocate(matrix().memory, source_));
  XFER_RETURN_IF_ERROR(allocate(matrix().remote_memory, target_));
  self_.buffer_address = reinterpret_cast<uint64_t>(target_.address);
  self_.buffer_length = target_.length;
  self_.registered_bytes = source_.length + target_.length;
  return Status::Ok();
}

Status ClusterRank::ExchangeHellos() {
  const auto start = Clock::now();
  auto hellos = boot_.AllGather(EncodeHello(self_), matrix().timeout, stop_);
  if (!hellos.ok()) return hellos.status().WithContext("the address exchange");
  run_.exchange_seconds = SecondsSince(start);
  if (hellos->size() != boot_.size()) {
    return ProtocolError(fmt::format("the address exchange gave {} hellos for {} ranks",
                                     hellos->size(), boot_.size()));
  }
  std::vector<std::string> names;
  for (uint32_t rank = 0; rank < hellos->size(); ++rank) {
    auto hello = DecodeHello((*hellos)[rank]);
    if (!hello.ok()) return hello.status().WithContext(fmt::format("rank {}'s hello", rank));
    if (hello->rank != rank) {
      return ProtocolError(fmt::format("rank {}'s hello says it is rank {}", rank, hello->rank));
    }
    if (hello->buffer_length < matrix().transfer_size) {
      return ProtocolError(fmt::format("rank {}'s buffer holds {} bytes, fewer than "
                                       "--transfer_size {}", rank, hello->buffer_length,
                                       matrix().transfer_size));
    }
    if (!ParseHostPort(hello->engine_address).ok()) {
      return ProtocolError(fmt::format("rank {}'s engine address '{}' is not host:port", rank,
                                       hello->engine_address));
    }
    names.push_back(fmt::format("rank {} ({})", rank, hello->host.hostname));
    run_.ranks.push_back(std::move(*hello));
  }
  boot_.NameRanks(std::move(names));
  return Status::Ok();
}

void ClusterRank::PlanCells() {
  const std::string transport = matrix().transports.empty() ? "" : matrix().transports.front();
  for (uint32_t s = 0; s < run_.steps.size(); ++s) {
    for (const matrix::Direction& direction : matrix().directions) {
      for (uint64_t block : matrix().block_sizes) {
        for (const Flow& flow : run_.steps[s].flows) {
          PairCell pair{s, run_.steps[s].round, flow, {}};
          pair.cell.direction = direction;
          pair.cell.transport = transport;
          pair.cell.initiator_memory = matrix().memory;
          pair.cell.target_memory = matrix().remote_memory;
          pair.cell.block_size = block;
          pair.cell.entries = matrix().transfer_size / block;
          pair.cell.requests = matrix().batch;
          run_.cells.push_back(std::move(pair));
        }
      }
    }
  }
  planned_ = true;
}

Result<Connection*> ClusterRank::ConnectTo(uint32_t target) {
  if (auto it = connections_.find(target); it != connections_.end()) return &it->second;
  ConnectOptions options;
  if (!matrix().transports.empty()) options.transport = matrix().transports.front();
  options.streams = matrix().streams;
  auto peer = engine_->Connect(run_.ranks[target].engine_address, options);
  if (!peer.ok()) return peer.status().WithContext("connecting to " + Name(target));
  auto info = engine_->GetPeerInfo(*peer);
  if (!info.ok()) return info.status();
  if (!options.transport.empty() && info->transport != options.transport) {
    return Internal(fmt::format("the connection to {} runs over {}, not the {} asked for",
                                Name(target), info->transport, options.transport));
  }
  const RankInfo& peer_rank = run_.ranks[target];
  const bool covered = std::any_of(info->regions.begin(), info->regions.end(),
                                   [&](const RemoteRegion& region) {
                                     return region.address <= peer_rank.buffer_address &&
                                            peer_rank.buffer_address + matrix().transfer_size <=
                                                region.address + region.length;
                                   });
  if (!covered) {
    return ProtocolError(fmt::format("{} registered no region holding the buffer its hello "
                                     "named", Name(target)));
  }
  auto [it, inserted] = connections_.emplace(target, Connection{*peer, std::move(*info)});
  return &it->second;
}

FlowReport ClusterRank::Measure(uint64_t group, const Flow& flow,
                                const matrix::Direction& direction, uint64_t block, bool beat) {
  FlowReport report;
  report.rank = self_.rank;
  report.group = group;
  report.measured = true;
  report.target = flow.target;
  auto heartbeat = [&] {
    if (beat) boot_.Heartbeat();
  };
  auto fail = [&](const Status& status) {
    report.status = CellStatus::kFailed;
    report.reason = status.ToString();
    report.warmup_seconds.clear();
    report.sample_seconds.clear();
    return report;
  };
  heartbeat();
  auto connection = ConnectTo(flow.target);
  heartbeat();
  if (!connection.ok()) {
    if (connection.status().code() == StatusCode::kNotSupported ||
        connection.status().code() == StatusCode::kFailedPrecondition) {
      report.status = CellStatus::kUnsupported;
      report.reason = connection.status().ToString();
      return report;
    }
    return fail(connection.status());
  }
  const PeerInfo& info = (*connection)->info;
  report.path_transport = info.transport;
  report.path_streams = info.streams;

  matrix::BatchLayout layout;
  layout.op = direction.op;
  layout.local = static_cast<uint8_t*>(source_.address);
  layout.remote = run_.ranks[flow.target].buffer_address;
  layout.block_size = block;
  layout.entries = matrix().transfer_size / block;
  const uint64_t per_post = std::max<uint32_t>(info.max_entries_per_post, 1);
  report.requests = static_cast<uint32_t>(
      std::max<uint64_t>(matrix().batch, (layout.entries + per_post - 1) / per_post));
  layout.requests = report.requests;
  layout.streams = info.streams;
  matrix::BatchSampler sampler(*engine_, (*connection)->peer, layout, matrix().timeout);

  const uint32_t total = matrix().warmup + matrix().loops;
  for (uint32_t k = 0; k < total; ++k) {
    if (const int signal = stop_.load(); signal != 0) {
      return fail(FailedPrecondition(fmt::format("interrupted by signal {}", signal)));
    }
    auto seconds = sampler.Sample();
    heartbeat();
    if (!seconds.ok() && seconds.status().code() == StatusCode::kNotSupported) {
      report.status = CellStatus::kUnsupported;
      report.reason = seconds.status().ToString();
      report.warmup_seconds.clear();
      report.sample_seconds.clear();
      return report;
    }
    if (!seconds.ok()) return fail(seconds.status());
    (k < matrix().warmup ? report.warmup_seconds : report.sample_seconds).push_back(*seconds);
  }
  report.status = CellStatus::kOk;
  return report;
}

std::vector<FlowReport> ClusterRank::MeasureMine(uint64_t group, const Step& step,
                                                 const matrix::Direction& direction,
                                                 uint64_t block) {
  std::vector<const Flow*> mine;
  for (const Flow& flow : step.flows) {
    if (flow.source == self_.rank) mine.push_back(&flow);
  }
  if (mine.empty()) return {FlowReport{}};
  if (mine.size() == 1) return {Measure(group, *mine.front(), direction, block)};
  // Fan-out's source: every connection made here first (connections_ is
  // this thread's), then one thread per flow, all sampling at once, while
  // this thread keeps rank 0 told that the rank is alive.
  std::vector<FlowReport> reports(mine.size());
  std::vector<size_t> connected;
  for (size_t i = 0; i < mine.size(); ++i) {
    if (ConnectTo(mine[i]->target).ok()) {
      connected.push_back(i);
    } else {
      // Here, not on a thread: Measure connects again and reports the
      // failure in its words (unsupported or failed).
      reports[i] = Measure(group, *mine[i], direction, block);
    }
    boot_.Heartbeat();
  }
  std::atomic<size_t> running{connected.size()};
  std::vector<std::thread> threads;
  for (size_t i : connected) {
    threads.emplace_back([&, i] {
      reports[i] = Measure(group, *mine[i], direction, block, /*beat=*/false);
      running.fetch_sub(1, std::memory_order_release);
    });
  }
  while (running.load(std::memory_order_acquire) != 0) {
    boot_.Heartbeat();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (std::thread& thread : threads) thread.join();
  return reports;
}

Status ClusterRank::Absorb(const std::vector<std::string>& reports, uint64_t group,
                           size_t first, size_t count) {
  const size_t max_samples = size_t{matrix().warmup} + matrix().loops;
  // Each rank's measured flows, by (source, target).
  std::map<std::pair<uint32_t, uint32_t>, FlowReport> by_flow;
  for (uint32_t rank = 0; rank < reports.size() && rank < boot_.size(); ++rank) {
    auto decoded = DecodeReports(reports[rank], max_samples, std::max<size_t>(boot_.size(), 1));
    if (!decoded.ok()) return decoded.status().WithContext(Name(rank) + "'s report");
    for (FlowReport& report : *decoded) {
      if (report.rank != rank || report.group != group) {
        return ProtocolError(fmt::format("{} answered for rank {}, group {} (expected group {})",
                                         Name(rank), report.rank, report.group, group));
      }
      run_.ranks[rank].max_rss_bytes = report.max_rss_bytes;
      run_.ranks[rank].registered_bytes = report.registered_bytes;
      if (report.measured) by_flow[{rank, report.target}] = std::move(report);
    }
  }
  Status first_failure = Status::Ok();
  for (size_t i = first; i < first + count; ++i) {
    PairCell& pair = run_.cells[i];
    const auto found = by_flow.find({pair.flow.source, pair.flow.target});
    const FlowReport* report = found == by_flow.end() ? nullptr : &found->second;
    matrix::CellResult& cell = pair.cell;
    if (report == nullptr) {
      return ProtocolError(fmt::format("{} reported no measurement for its flow to {}",
                                       Name(pair.flow.source), Name(pair.flow.target)));
    }
    cell.status = report->status;
    cell.reason = report->reason;
    cell.path_transport = report->path_transport;
    cell.path_streams = report->path_streams;
    cell.requests = report->requests;
    cell.warmup_seconds = report->warmup_seconds;
    cell.sample_seconds = report->sample_seconds;
    if (cell.status == CellStatus::kOk) {
      auto stat = matrix::ComputeCellStatistic(matrix().transfer_size, cell.sample_seconds);
      if (!stat.ok()) return stat.status().WithContext(Name(pair.flow.source) + "'s samples");
      cell.median_gbps = stat->median_gbps;
      cell.min_gbps = stat->min_gbps;
      cell.max_gbps = stat->max_gbps;
    } else if (cell.status == CellStatus::kFailed && first_failure.ok()) {
      first_failure = IoError(fmt::format("{} -> {}, {} {}: {}", Name(pair.flow.source),
                                           Name(pair.flow.target), cell.direction.Name(),
                                           matrix::BlockLabel(cell.block_size), cell.reason));
    }
  }
  return first_failure;
}

Status ClusterRank::RunGroups() {
  const auto group_bound =
      matrix().timeout * (int64_t{matrix().warmup} + matrix().loops + 2);
  const auto silence = matrix().timeout + std::chrono::seconds(1);
  uint64_t group = 0;
  size_t first = 0;
  for (uint32_t s = 0; s < run_.steps.size(); ++s) {
    const Step& step = run_.steps[s];
    for (const matrix::Direction& direction : matrix().directions) {
      for (uint64_t block : matrix().block_sizes) {
        std::vector<FlowReport> mine = MeasureMine(group, step, direction, block);
        const uint64_t rss = MaxRssBytes();
        for (FlowReport& report : mine) {
          report.rank = self_.rank;
          report.group = group;
          report.registered_bytes = self_.registered_bytes;
          report.max_rss_bytes = rss;
        }

        const auto meeting = Clock::now();
        auto reports = boot_.GatherToRoot(EncodeReports(mine), silence, stop_);
        Status verdict = reports.ok() ? Status::Ok() : reports.status();
        if (root() && verdict.ok()) verdict = Absorb(*reports, group, first, step.flows.size());
        if (root()) {
          run_.meeting_seconds.push_back(SecondsSince(meeting));
          observer_.OnGroupDone(run_, first, step.flows.size());
        }
        // Rank 0 reports a failed run (Finish) before any rank hears of it,
        // since the launcher ends every rank once one gives up (AbortAll):
        // the others learn of it from mpirun, or from their bound.
        if (!verdict.ok()) return verdict;
        auto released = boot_.Meet({true, ""}, group_bound, stop_);
        if (!released.ok()) return released.status().WithContext("waiting for rank 0");
        if (!released->go_on) {
          return FailedPrecondition("rank 0 ended the run: " + released->reason);
        }
        first += step.flows.size();
        ++group;
      }
    }
  }
  return Status::Ok();
}

Status ClusterRank::Finish(Status status) {
  if (!root() || !planned_) return status;
  run_.end_time = bench::UtcNow();
  if (status.ok()) {
    run_.outcome = matrix::RunOutcome::kComplete;
  } else {
    run_.outcome = stop_.load() != 0 ? matrix::RunOutcome::kInterrupted
                                     : matrix::RunOutcome::kFailed;
    run_.error = status.message();
  }
  observer_.OnFinish(run_);
  return status;
}

Status ClusterRank::Run() {
  run_.start_time = bench::UtcNow();
  XFER_RETURN_IF_ERROR(Prepare());
  XFER_RETURN_IF_ERROR(ExchangeHellos());
  PlanCells();
  if (root()) observer_.OnPlan(run_);
  return Finish(RunGroups());
}

}  // namespace

Status RunClusterRank(const ClusterConfig& config, RankBootstrap& bootstrap,
                      const matrix::HostFingerprint& local, ClusterObserver& observer,
                      const std::atomic<int>& stop) {
  ClusterRank rank(config, bootstrap, local, observer, stop);
  return rank.Run();
}

}  // namespace xfer::cluster
