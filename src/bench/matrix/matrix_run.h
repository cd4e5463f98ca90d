// The whole of one matrix run as the initiator knows it: what was asked,
// both machines, and every cell of the grid. Reports render from this
// alone, at any point of the run: cells not reached yet are kNotRun.
#ifndef XFER_BENCH_MATRIX_MATRIX_RUN_H_
#define XFER_BENCH_MATRIX_MATRIX_RUN_H_

#include <cstddef>
#include <string>
#include <vector>

#include "bench/matrix/cell_result.h"
#include "bench/matrix/host_fingerprint.h"
#include "bench/matrix/local_anchor.h"
#include "bench/model/rail_timeline.h"
#include "bench/model/registration_timing.h"
#include "bench/matrix/matrix_config.h"
#include "xfer/device_registration.h"

namespace xfer::matrix {

// A transport of the default set that the host pair cannot use; it gets no
// column (a transport named in --transports keeps its column, n/a).
struct SkippedTransport {
  std::string name;
  std::string reason;
};

enum class RunOutcome {
  kRunning,
  kComplete,     // every cell finished (some may be unsupported)
  kFailed,       // a cell or the target failed; `error` says which and why
  kInterrupted,  // SIGINT/SIGTERM; `error` names the cell it stopped in
};

// "running", "complete", "failed", "interrupted".
const char* RunOutcomeName(RunOutcome outcome);

struct MatrixRun {
  MatrixConfig config;
  std::vector<std::string> transports;  // the column groups, in order
  std::vector<SkippedTransport> skipped;
  HostFingerprint initiator;
  HostFingerprint target;
  std::string start_time;  // ISO 8601 UTC, "2026-12-01T20:19:28Z"
  std::string end_time;    // "" while running
  // The full grid in run order: transport, then direction, then block size
  // (ascending). cells.size() == transports.size() * directions * blocks.
  std::vector<CellResult> cells;
  // The initiator GPU's local copies (local_anchor.h), after the cells;
  // empty when no direction touches device memory.
  std::vector<AnchorResult> anchors;
  // What registering the initiator's buffers cost, one per memory placement
  // it allocated; deregistration timed at the run's end.
  std::vector<bench::RegistrationTiming> registrations;
  // What connecting over a transport registered with its NIC
  // (PeerInfo::registration), for each connected transport that registers
  // memory with a device (verbs); in column order.
  struct NicRegistration {
    std::string transport;
    DeviceRegistration registration;
  };
  std::vector<NicRegistration> nic_registrations;
  // --timeline: per column striped over several rails, what each rail
  // carried interval by interval while its cells ran (each cell's span on
  // it: CellResult::timeline_from_ms), in column order.
  struct ColumnTimeline {
    std::string transport;
    bench::RailTimeline timeline;
  };
  std::vector<ColumnTimeline> rail_timelines;
  RunOutcome outcome = RunOutcome::kRunning;
  std::string error;

  // The cell of (transport, direction, block) by their indices in
  // `transports`, config.directions and config.block_sizes.
  size_t CellIndex(size_t transport, size_t direction, size_t block) const {
    return (transport * config.directions.size() + direction) * config.block_sizes.size() + block;
  }
};

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_MATRIX_RUN_H_
