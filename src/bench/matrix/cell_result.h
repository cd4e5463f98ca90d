// What one matrix cell measured: one (direction, transport, block size).
#ifndef XFER_BENCH_MATRIX_CELL_RESULT_H_
#define XFER_BENCH_MATRIX_CELL_RESULT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/model/ceiling.h"
#include "bench/matrix/direction.h"
#include "xfer/engine.h"

namespace xfer::matrix {

// matrix.md §11.6: a path that does not exist, a run that failed and a cell
// never reached must not look alike.
enum class CellStatus {
  kOk,           // measured
  kUnsupported,  // the engine said this path cannot run here; `reason` says why
  kFailed,       // it ran and failed; `reason` is the error
  kNotRun,       // the matrix stopped before this cell
};

// "ok", "unsupported", "failed", "not run".
const char* CellStatusName(CellStatus status);

struct CellResult {
  Direction direction;
  std::string transport;          // as asked for (the column)
  std::string initiator_memory;   // placement names: "host", "hugepage", ...
  std::string target_memory;
  uint64_t block_size = 0;        // bytes per entry
  uint64_t entries = 0;           // entries per sample: transfer_size / block_size
  // Requests in flight per sample: --batch, or more where the transport
  // takes fewer entries per Submit (PeerInfo::max_entries_per_post).
  uint32_t requests = 0;

  CellStatus status = CellStatus::kNotRun;
  std::string reason;             // unsupported / failed: why

  // The path the engine reported for the connection that carried the cell.
  std::string path_transport;
  uint32_t path_streams = 0;
  std::string path_data_mover;  // xfer::DataMoverName of that transport's
  // How it moved device memory ("CUDA IPC"); empty for host-only cells.
  std::string path_device;
  // Whether the initiator's buffers bounced through its staging memory
  // (PeerInfo::staged, --device_path staged).
  bool path_staged = false;
  // The connection's rails, and the bytes each carried for this cell's
  // samples (PeerInfo::rails before and after); one rail when not striped.
  std::vector<RailInfo> path_rails;
  // --timeline: when the cell's samples began and ended on its column's
  // rail timeline (MatrixRun::rail_timelines), in ms; empty without one.
  std::optional<double> timeline_from_ms;
  std::optional<double> timeline_to_ms;

  // Seconds per sample, in the order taken; warm-ups are never counted.
  std::vector<double> warmup_seconds;
  std::vector<double> sample_seconds;
  // GB/s = 10^9 B/s over sample_seconds; zero unless status is kOk.
  double median_gbps = 0;
  double min_gbps = 0;
  double max_gbps = 0;
  // Set only with --verify: whether every byte of the cell's layout landed.
  std::optional<bool> verified;
  // The path's ceiling at this block size (cell_ceilings.h); set before
  // the cell runs when the run records ceilings.
  std::optional<bench::Ceiling> ceiling;
};

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_CELL_RESULT_H_
