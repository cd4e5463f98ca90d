#include "bench/matrix/matrix_initiator.h"

#include <chrono>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "bench/heartbeat.h"
#include "bench/matrix/batch_sampler.h"
#include "bench/matrix/block_size.h"
#include "bench/matrix/cell_ceilings.h"
#include "bench/matrix/cell_statistic.h"
#include "bench/matrix/control_channel.h"
#include "bench/matrix/data_pattern.h"
#include "bench/matrix/matrix_agreement.h"
#include "bench/matrix/matrix_engine.h"
#include "bench/matrix/side_buffers.h"
#include "bench/model/interruption.h"
#include "bench/rail_sampler.h"
#include "bench/utc_time.h"
#include "common/clock.h"
#include "common/socket.h"
#include "xfer/engine.h"

namespace xfer::matrix {
namespace {

// Connect's word that the pair cannot use a transport, as opposed to a
// connection that failed.
bool IsUnusable(const Status& status) {
  return status.code() == StatusCode::kNotSupported ||
         status.code() == StatusCode::kFailedPrecondition;
}

bool IsDevice(const MemoryPlacement& placement) {
  return placement.engine_kind == MemoryKind::kCuda;
}

std::string CellName(const CellResult& cell) {
  return fmt::format("{} {} {}", cell.transport, cell.direction.Name(), BlockLabel(cell.block_size));
}

// One column group: a transport and the engine connection that carries it.
struct Column {
  std::string transport;
  std::optional<PeerId> peer;  // none: the pair cannot use it
  std::string reason;          // why not
  PeerInfo info;
};

class Initiator {
 public:
  Initiator(const MatrixConfig& config, const HostFingerprint& local, MatrixObserver& observer,
            const std::atomic<int>& stop)
      : config_(config), observer_(observer), stop_(stop) {
    run_.config = config;
    run_.initiator = local;
    // Per run, so that a buffer left over from an earlier run never passes
    // --verify.
    seed_base_ = NowNs();
  }

  Status Run();

 private:
  Status Setup();
  Status ConnectColumns();
  void PlanGrid();
  void AssignCeilings();
  Status MeasureColumn(size_t column);
  Status MeasureCell(size_t index, const Column& column);
  Status Verify(size_t index, BatchSampler& sampler, uint8_t* local);
  // The column's rails as the engine counts them now.
  std::vector<RailInfo> RailsNow(const Column& column) const {
    auto info = engine_->GetPeerInfo(*column.peer);
    return info.ok() ? info->rails : column.info.rails;
  }
  Status AskTarget(const BufferRequest& request);
  Status FailCell(size_t index, const Status& why);
  Status Interrupted(size_t index, uint32_t sample, uint32_t total);
  const TargetBuffer* FindTargetBuffer(const std::string& placement) const;
  Status Finish(Status status);
  // Frees the local buffers once the grid is done, timing each
  // deregistration into run_.registrations.
  void DeregisterLocalBuffers();

  const MatrixConfig& config_;
  MatrixObserver& observer_;
  const std::atomic<int>& stop_;
  MatrixRun run_;
  uint64_t seed_base_ = 0;
  bool planned_ = false;

  std::unique_ptr<Engine> engine_;  // owns local_'s memory
  std::vector<PlacedBuffer> local_;
  std::unique_ptr<ControlChannel> control_;
  std::vector<TargetBuffer> remote_;
  uint16_t engine_port_ = 0;
  std::vector<Column> columns_;
};

// OK when at least one cell was measured (or there were none to measure);
// else kFailedPrecondition saying so, with the first cell's reason.
Status SomeCellMeasured(const MatrixRun& run) {
  const CellResult* first = nullptr;
  for (const CellResult& cell : run.cells) {
    if (cell.status == CellStatus::kOk) return Status::Ok();
    if (first == nullptr) first = &cell;
  }
  if (first == nullptr) return Status::Ok();
  return FailedPrecondition(fmt::format(
      "no cell could be measured: all {} are n/a (the first: {})", run.cells.size(),
      first->reason.empty() ? "no reason given" : first->reason));
}

Status Initiator::Run() {
  run_.start_time = bench::UtcNow();
  Status status = Setup();
  if (!status.ok()) {
    if (control_) control_->SendAbort(status.message());
    return Finish(status);
  }
  bench::Heartbeat alive([this] { return control_->SendHeartbeat(); }, true);
  status = ConnectColumns();
  if (status.ok()) {
    PlanGrid();
    for (size_t c = 0; c < columns_.size() && status.ok(); ++c) status = MeasureColumn(c);
  }
  if (status.ok() && !run_.anchors.empty() && stop_.load() == 0) {
    MeasureAnchors(config_, run_.anchors);
  }
  for (const Column& column : columns_) {
    if (column.peer) (void)engine_->Disconnect(*column.peer);
  }
  if (status.ok()) {
    status = control_->SendDone();
    // A table of n/a is no result: a script must be able to tell.
    if (status.ok()) status = SomeCellMeasured(run_);
  } else {
    control_->SendAbort(status.message());
  }
  return Finish(status);
}

Status Initiator::Finish(Status status) {
  run_.end_time = bench::UtcNow();
  if (status.ok()) {
    run_.outcome = RunOutcome::kComplete;
  } else {
    run_.outcome = stop_.load() != 0 ? RunOutcome::kInterrupted : RunOutcome::kFailed;
    run_.error = status.message();
  }
  DeregisterLocalBuffers();
  if (!planned_) observer_.OnPlan(run_);
  observer_.OnFinish(run_);
  return status;
}

void Initiator::DeregisterLocalBuffers() {
  if (!engine_) return;
  size_t k = 0;
  for (PlacedBuffer& buffer : local_) {
    if (!buffer.available) continue;
    const auto start = std::chrono::steady_clock::now();
    const Status gone = engine_->DeregisterMemory(buffer.region);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    buffer.available = false;
    if (k < run_.registrations.size() && gone.ok()) run_.registrations[k].deregister_s = seconds;
    ++k;
  }
}

Status Initiator::Setup() {
  auto engine = CreateMatrixEngine(config_, "xfer-matrix-initiator", "");
  if (!engine.ok()) return engine.status().WithContext("creating the engine");
  engine_ = std::move(engine.value());

  auto local = AllocateSideBuffers(
      *engine_, PlacementsNeeded(config_.directions, true, config_.memory), config_.transfer_size,
      config_.cuda_device);
  if (!local.ok()) return local.status();
  local_ = std::move(local.value());
  for (const PlacedBuffer& buffer : local_) {
    if (buffer.available) run_.registrations.push_back(buffer.registration);
  }

  auto socket = ConnectTcp({config_.host, config_.port}, Deadline::After(config_.timeout));
  if (!socket.ok()) {
    return socket.status().WithContext(
        fmt::format("connecting to the matrix target at {}:{}", config_.host, config_.port));
  }
  control_ = std::make_unique<ControlChannel>(std::move(socket.value()), config_.timeout);
  XFER_RETURN_IF_ERROR(control_->SendHello({AgreementOf(config_), run_.initiator}));
  auto reply = control_->RecvHelloReply();
  if (!reply.ok()) return reply.status();
  if (!reply->accepted) return InvalidArgument("the target refused the matrix: " + reply->refusal);
  for (const TargetBuffer& buffer : reply->buffers) {
    if (buffer.available && buffer.length < config_.transfer_size) {
      return ProtocolError(fmt::format("the target's {} buffer is {} bytes; the matrix needs {}",
                                       buffer.placement, buffer.length, config_.transfer_size));
    }
  }
  run_.target = reply->fingerprint;
  remote_ = std::move(reply->buffers);
  engine_port_ = reply->engine_port;
  return Status::Ok();
}

Status Initiator::ConnectColumns() {
  const std::string address = FormatHostPort({config_.host, engine_port_});
  const bool asked = !config_.transports.empty();
  for (const std::string& name : asked ? config_.transports : BuiltinTransports()) {
    ConnectOptions options;
    options.transport = name;
    options.streams = config_.streams;
    options.rails = config_.rails;
    auto peer = engine_->Connect(address, options);
    if (!peer.ok()) {
      if (!IsUnusable(peer.status())) {
        return peer.status().WithContext(fmt::format("connecting the engine over {}", name));
      }
      if (asked) {
        columns_.push_back({name, std::nullopt, peer.status().message(), {}});
      } else {
        run_.skipped.push_back({name, peer.status().message()});
      }
      continue;
    }
    auto info = engine_->GetPeerInfo(*peer);
    if (!info.ok()) return info.status();
    if (info->registration.bytes > 0) run_.nic_registrations.push_back({name, info->registration});
    Column column{name, *peer, "", *info};
    if (info->transport != name) {
      columns_.push_back(std::move(column));
      return Internal(fmt::format("asked for transport {} but the engine connected over {}", name,
                                  info->transport));
    }
    columns_.push_back(std::move(column));
  }
  return Status::Ok();
}

const TargetBuffer* Initiator::FindTargetBuffer(const std::string& placement) const {
  for (const TargetBuffer& buffer : remote_) {
    if (buffer.placement == placement) return &buffer;
  }
  return nullptr;
}

void Initiator::PlanGrid() {
  run_.anchors = PlanAnchors(config_);
  for (const Column& column : columns_) run_.transports.push_back(column.transport);
  for (const Column& column : columns_) {
    for (const Direction& direction : config_.directions) {
      const MemoryPlacement* mine = PlacementFor(direction.initiator, config_.memory);
      const MemoryPlacement* theirs = PlacementFor(direction.target, config_.remote_memory);
      const PlacedBuffer* local = FindBuffer(local_, mine->name);
      const TargetBuffer* remote = FindTargetBuffer(std::string(theirs->name));
      for (uint64_t block : config_.block_sizes) {
        CellResult cell;
        cell.direction = direction;
        cell.transport = column.transport;
        cell.initiator_memory = mine->name;
        cell.target_memory = theirs->name;
        cell.block_size = block;
        cell.entries = config_.transfer_size / block;
        cell.requests = config_.batch;
        if (!column.peer) {
          cell.status = CellStatus::kUnsupported;
          cell.reason = column.reason;
        } else if (local == nullptr || !local->available) {
          cell.status = CellStatus::kUnsupported;
          cell.reason = local == nullptr ? "no initiator buffer" : local->reason;
        } else if (remote == nullptr || !remote->available) {
          cell.status = CellStatus::kUnsupported;
          cell.reason = "target: " + (remote == nullptr ? std::string("no buffer of this kind")
                                                        : remote->reason);
        } else if (!column.info.device_memory && (IsDevice(*mine) || IsDevice(*theirs))) {
          cell.status = CellStatus::kUnsupported;
          cell.reason = fmt::format(
              "the {} transport does not carry CUDA device memory in this build",
              column.info.transport);
        }
        run_.cells.push_back(std::move(cell));
      }
    }
  }
  if (config_.RecordsCeiling()) AssignCeilings();
  planned_ = true;
  observer_.OnPlan(run_);
}

// Measured before the first cell, while the target waits, so that no cell's
// figure competes with the measurement.
void Initiator::AssignCeilings() {
  CellCeilings ceilings(config_.transfer_size);
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (!columns_[c].peer) continue;
    for (size_t i = run_.CellIndex(c, 0, 0); i < run_.CellIndex(c + 1, 0, 0); ++i) {
      CellResult& cell = run_.cells[i];
      if (cell.status != CellStatus::kNotRun) continue;
      const bool device = IsDevice(*FindPlacement(cell.initiator_memory)) ||
                          IsDevice(*FindPlacement(cell.target_memory));
      cell.ceiling = ceilings.For(columns_[c].info, device, cell.block_size);
    }
  }
}

Status Initiator::MeasureColumn(size_t column) {
  const Column& connection = columns_[column];
  // --timeline: over several rails, what each carries while the column's
  // cells run (as write_bw's --timeline).
  std::optional<bench::RailSampler> sampler;
  if (config_.timeline_ms != 0 && connection.peer && connection.info.rails.size() > 1) {
    sampler.emplace(*engine_, *connection.peer, std::chrono::milliseconds(config_.timeline_ms));
    XFER_RETURN_IF_ERROR(sampler->Start());
  }
  Status status;
  for (size_t i = run_.CellIndex(column, 0, 0); i < run_.CellIndex(column + 1, 0, 0); ++i) {
    if (run_.cells[i].status != CellStatus::kNotRun) continue;
    if (sampler) run_.cells[i].timeline_from_ms = sampler->ElapsedMs();
    status = MeasureCell(i, connection);
    if (sampler) run_.cells[i].timeline_to_ms = sampler->ElapsedMs();
    if (!status.ok()) break;
  }
  // Kept when a cell failed too: the timeline may show why.
  if (sampler) run_.rail_timelines.push_back({connection.transport, sampler->Stop()});
  return status;
}

Status Initiator::MeasureCell(size_t index, const Column& column) {
  CellResult& cell = run_.cells[index];
  cell.path_transport = column.info.transport;
  cell.path_streams = column.info.streams;
  cell.path_data_mover = DataMoverName(column.info.data_mover);
  const bool device_cell =
      IsDevice(*FindPlacement(cell.initiator_memory)) || IsDevice(*FindPlacement(cell.target_memory));
  if (device_cell) cell.path_device = column.info.device_path;
  cell.path_staged = column.info.staged;
  uint8_t* local = static_cast<uint8_t*>(FindBuffer(local_, cell.initiator_memory)->region.address);
  BatchLayout layout;
  layout.op = cell.direction.op;
  layout.local = local;
  layout.remote = FindTargetBuffer(cell.target_memory)->address;
  layout.block_size = cell.block_size;
  layout.entries = cell.entries;
  // Split further where the transport takes fewer entries per Submit; the
  // cell records the requests that really ran.
  const uint64_t per_post = std::max<uint32_t>(column.info.max_entries_per_post, 1);
  cell.requests = static_cast<uint32_t>(
      std::max<uint64_t>(cell.requests, (cell.entries + per_post - 1) / per_post));
  layout.requests = cell.requests;
  layout.streams = column.info.streams;
  BatchSampler sampler(*engine_, *column.peer, layout, config_.timeout);
  const std::vector<RailInfo> rails_before = RailsNow(column);

  const uint32_t total = config_.warmup + config_.loops;
  for (uint32_t k = 0; k < total; ++k) {
    if (stop_.load() != 0) return Interrupted(index, k, total);
    if (Status peer = control_->CheckPeer(); !peer.ok()) return FailCell(index, peer);
    auto seconds = sampler.Sample();
    if (!seconds.ok() && seconds.status().code() == StatusCode::kNotSupported) {
      // The engine refused before moving a byte: the path does not exist
      // here (a peer device region this side cannot open, say).
      cell.status = CellStatus::kUnsupported;
      cell.reason = seconds.status().ToString();
      cell.warmup_seconds.clear();
      cell.sample_seconds.clear();
      observer_.OnCellDone(run_, index);
      return Status::Ok();
    }
    if (!seconds.ok()) return FailCell(index, seconds.status());
    (k < config_.warmup ? cell.warmup_seconds : cell.sample_seconds).push_back(*seconds);
    observer_.OnSample(run_, index, k + 1, total);
  }
  auto stat = ComputeCellStatistic(config_.transfer_size, cell.sample_seconds);
  if (!stat.ok()) return FailCell(index, stat.status());
  // The pattern is written and checked by the CPU, which cannot touch
  // device memory: device cells are measured, and their `verified` stays
  // unset.
  cell.path_rails = RailsNow(column);
  for (size_t r = 0; r < cell.path_rails.size() && r < rails_before.size(); ++r) {
    cell.path_rails[r].bytes -= rails_before[r].bytes;
    cell.path_rails[r].slices -= rails_before[r].slices;
  }
  if (config_.verify && !device_cell) XFER_RETURN_IF_ERROR(Verify(index, sampler, local));
  cell.median_gbps = stat->median_gbps;
  cell.min_gbps = stat->min_gbps;
  cell.max_gbps = stat->max_gbps;
  cell.status = CellStatus::kOk;
  observer_.OnCellDone(run_, index);
  return Status::Ok();
}

Status Initiator::AskTarget(const BufferRequest& request) {
  XFER_RETURN_IF_ERROR(control_->SendBufferRequest(request));
  auto reply = control_->RecvBufferReply();
  if (!reply.ok()) return reply.status();
  if (!reply->ok) return Internal("the target's buffer: " + reply->message);
  return Status::Ok();
}

// After the timed samples, one more transfer of the same entries over
// fresh bytes: the pattern of a per-cell seed in the source, poison in the
// destination, then every byte of the destination compared.
Status Initiator::Verify(size_t index, BatchSampler& sampler, uint8_t* local) {
  CellResult& cell = run_.cells[index];
  const uint64_t seed = seed_base_ ^ ((index + 1) * 0x9E3779B97F4A7C15ull);
  const uint64_t length = config_.transfer_size;
  Status status;
  if (cell.direction.op == OpCode::kWrite) {
    FillPattern(local, length, seed);
    status = AskTarget({BufferOp::kPoison, cell.target_memory, 0, length});
    if (status.ok()) status = sampler.Sample().status();
    if (status.ok()) status = AskTarget({BufferOp::kCheck, cell.target_memory, seed, length});
  } else {
    status = AskTarget({BufferOp::kFill, cell.target_memory, seed, length});
    PoisonPattern(local, length);
    if (status.ok()) status = sampler.Sample().status();
    if (status.ok()) {
      if (auto bad = FindPatternMismatch(local, length, seed)) {
        status = Internal(fmt::format("byte {} (block {}) of the data read back differs from the "
                                      "target's", *bad, *bad / cell.block_size));
      }
    }
  }
  if (!status.ok()) {
    cell.verified = false;
    return FailCell(index, status.WithContext("--verify"));
  }
  cell.verified = true;
  return Status::Ok();
}

Status Initiator::FailCell(size_t index, const Status& why) {
  CellResult& cell = run_.cells[index];
  cell.status = CellStatus::kFailed;
  cell.reason = why.ToString();
  observer_.OnCellDone(run_, index);
  return why.WithContext(CellName(cell));
}

// REQUIRES: stop_ is raised.
Status Initiator::Interrupted(size_t index, uint32_t sample, uint32_t total) {
  const Status interrupted = bench::CheckInterrupted(stop_);
  return Status(interrupted.code(),
                fmt::format("{} in cell {} after {} of {} samples; that cell and the ones after "
                            "it were not run",
                            interrupted.message(), CellName(run_.cells[index]), sample, total));
}

}  // namespace

Status RunMatrixInitiator(const MatrixConfig& config, const HostFingerprint& local,
                          MatrixObserver& observer, const std::atomic<int>& stop) {
  Initiator initiator(config, local, observer, stop);
  return initiator.Run();
}

}  // namespace xfer::matrix
