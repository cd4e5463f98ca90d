// What one `xfer matrix` run is asked to do: the immutable product of the
// CLI and the only input of the matrix runners. Semantics follow HIXL's
// hixl_comm_bench (../shared/reference/matrix.md §2-3) without its flaws:
// uncounted warm-up samples, a median with its min and max, and the path
// that really ran recorded per cell.
#ifndef XFER_BENCH_MATRIX_MATRIX_CONFIG_H_
#define XFER_BENCH_MATRIX_MATRIX_CONFIG_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/matrix/direction.h"
#include "xfer/engine.h"

namespace xfer::matrix {

// kTarget serves one initiator; kInitiator measures against a target;
// kLoopback forks the target and runs the initiator here.
enum class Role { kTarget, kInitiator, kLoopback };

// The RDMA device of the verbs transport (perftest's -d, -i, -x).
struct VerbsDevice {
  std::string device;            // "" = the first device
  uint8_t port = 1;
  std::optional<int> gid_index;  // none = automatic
};

struct MatrixConfig {
  Role role = Role::kTarget;
  std::string host;              // initiator: the target's host
  uint16_t port = 18515;         // -p: the control port

  // The measured matrix. Both sides must agree on every field in this
  // block (matrix_agreement.h).
  std::vector<Direction> directions;   // never empty; column order
  // Transports by name, column-group order. Empty: every transport this
  // build has, keeping those the host pair can use.
  std::vector<std::string> transports;
  std::vector<uint64_t> block_sizes;   // ascending, each divides transfer_size
  uint64_t transfer_size = uint64_t{128} << 20;  // bytes per sample
  uint32_t batch = 1;     // requests in flight per sample (HIXL async_batch_num)
  uint32_t loops = 5;     // counted samples per cell
  uint32_t warmup = 1;    // uncounted samples before them
  uint32_t streams = 1;   // ConnectOptions::streams
  uint32_t rails = 0;     // ConnectOptions::rails (0: the transport's choice)
  std::string memory = "host";         // the initiator's H kind
  std::string remote_memory = "host";  // the target's H kind
  bool verify = false;    // check every cell's bytes after its samples
  // --timeline: the initiator samples what each rail of a column striped
  // over several carries, every this many ms (0: no timeline). Its own, not
  // part of the agreement.
  uint32_t timeline_ms = 0;

  // --use_cuda: this side's GPU for device memory. Each side picks its own,
  // as perftest's sides do, so it is not part of the agreement.
  int cuda_device = 0;

  // The device flags as the JSON records them.
  VerbsDevice verbs;
  // What those flags set in the engine's per-transport settings, derived
  // by the CLI from the transports' own option tables
  // (EngineOptions::transport_options).
  std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>>
      transport_options;
  // Every wait: one sample's transfer, each control message, connecting.
  std::chrono::milliseconds timeout{10000};
  // --device_path: EngineOptions::device_path of this side's engine.
  DevicePath device_path = DevicePath::kAuto;
  // --secret-file: EngineOptions::secret of both sides' engines; "" = none.
  std::string secret;
  // Target: how long to wait for the initiator to connect.
  std::chrono::milliseconds accept_timeout{600000};

  // Output (initiator side; the target prints nothing but errors).
  std::string json_path;
  std::string csv_path;
  std::string markdown_path;
  bool quiet = false;            // no progress line
  // --efficiency: each transport's table is followed by its cells' median
  // as a fraction of the path's ceiling (cell_ceilings.h).
  bool efficiency = false;
  std::vector<std::string> command_line;  // argv as typed, for the JSON

  // Whether the initiator measures the cells' ceilings: for --efficiency
  // or for the JSON document, which always records them.
  bool RecordsCeiling() const { return efficiency || !json_path.empty(); }
};

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_MATRIX_CONFIG_H_
