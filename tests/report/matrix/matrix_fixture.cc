// The hand-built run every matrix report test renders, and the golden-file
// check (matrix_fixture.h).
//
// The run: transports shm and tcp (verbs skipped), all eight directions,
// blocks 16K, 64K and 2M of a 128 MiB sample, 5 samples after 1 warm-up,
// --verify. Directions touching device memory are n/a with the placement's
// reason; H2rH and rH2H are measured, except tcp rH2H 64K, which failed
// (and stopped the run), and tcp rH2H 2M, never reached. shm rH2H 2M did
// not verify.
#include "report/matrix/matrix_fixture.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/matrix/matrix_run.h"
#include "bench/matrix/memory_placement.h"

namespace xfer::report::testing {
namespace {

using matrix::CellResult;
using matrix::CellStatus;
using matrix::Direction;

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kTransfer = 128 * kKiB * kKiB;
// Each cell's samples as multiples of its median, in the order taken.
constexpr double kSpread[] = {1.00, 0.98, 1.02, 0.95, 1.01};

// The median GB/s of a measured cell: write bandwidths by transport and
// block, reads at 90 % of them.
double MedianGbps(const std::string& transport, const Direction& direction, size_t block) {
  const double shm[] = {5.2, 9.8, 12.5};
  const double tcp[] = {1.1, 2.3, 3.05};
  const double write = transport == "shm" ? shm[block] : tcp[block];
  return direction.op == OpCode::kWrite ? write : write * 0.9;
}

double Seconds(double gbps) { return static_cast<double>(kTransfer) / 1e9 / gbps; }

std::string MemoryName(char letter, const std::string& host_kind) {
  return letter == 'H' ? host_kind : std::string(matrix::DefaultPlacement(letter)->name);
}

void Measure(CellResult& cell, double median) {
  cell.status = CellStatus::kOk;
  cell.path_transport = cell.transport;
  cell.path_streams = 1;
  cell.path_data_mover = cell.transport == "shm" ? "cpu copy" : "kernel";
  cell.warmup_seconds = {Seconds(median * 0.5)};
  for (double factor : kSpread) cell.sample_seconds.push_back(Seconds(median * factor));
  cell.median_gbps = median;
  cell.min_gbps = median * 0.95;
  cell.max_gbps = median * 1.02;
  cell.verified = true;
}

matrix::HostFingerprint Host(const std::string& name, uint32_t cpus) {
  matrix::HostFingerprint host;
  host.hostname = name;
  host.kernel = "6.1.0-18-amd64";
  host.cpu_model = "AMD EPYC 7763 64-Core Processor";
  host.cpu_count = cpus;
  host.xfer_version = "0.1.0";
  return host;
}

}  // namespace

matrix::MatrixRun SampleRun() {
  matrix::MatrixRun run;
  matrix::MatrixConfig& config = run.config;
  config.role = matrix::Role::kInitiator;
  config.host = "node-b";
  config.directions = matrix::AllDirections();
  config.block_sizes = {16 * kKiB, 64 * kKiB, 2 * kKiB * kKiB};
  config.transfer_size = kTransfer;
  config.loops = 5;
  config.warmup = 1;
  config.verify = true;
  config.command_line = {"xfer", "matrix", "node-b", "--block-sizes", "16K,64K,2M", "--verify"};

  run.transports = {"shm", "tcp"};
  run.skipped = {{"verbs", "no RDMA device: libibverbs lists none"}};
  run.initiator = Host("node-a", 128);
  run.initiator.rdma = {{"mlx5_0", 1, "ACTIVE", "Ethernet", 200}};
  run.target = Host("node-b", 0);
  run.start_time = "2026-12-01T20:19:28Z";
  run.end_time = "2026-12-01T20:21:03Z";
  run.outcome = matrix::RunOutcome::kFailed;
  run.error = "tcp rH2H 64K: timeout: sample 3 took longer than 10 s";

  for (const std::string& transport : run.transports) {
    for (const Direction& direction : config.directions) {
      for (size_t b = 0; b < config.block_sizes.size(); ++b) {
        CellResult cell;
        cell.direction = direction;
        cell.transport = transport;
        cell.initiator_memory = MemoryName(direction.initiator, config.memory);
        cell.target_memory = MemoryName(direction.target, config.remote_memory);
        cell.block_size = config.block_sizes[b];
        cell.entries = kTransfer / cell.block_size;
        cell.requests = 1;
        const bool device = direction.initiator == 'D' || direction.target == 'D';
        const bool tcp_read = transport == "tcp" && direction.Name() == "rH2H";
        if (device) {
          cell.status = CellStatus::kUnsupported;
          cell.reason =
              "device memory: CUDA device memory on device 0: no NVIDIA driver: cannot load "
              "libcuda.so.1";
        } else if (tcp_read && b == 1) {
          cell.status = CellStatus::kFailed;
          cell.reason = "timeout: sample 3 took longer than 10 s";
          cell.path_transport = "tcp";
          cell.path_streams = 1;
          cell.warmup_seconds = {0.5};
          cell.sample_seconds = {0.25, 0.26};
        } else if (!(tcp_read && b == 2)) {
          Measure(cell, MedianGbps(transport, direction, b));
        }
        run.cells.push_back(cell);
      }
    }
  }
  // shm rH2H 2M: transport 0, direction 6, block 2.
  run.cells[run.CellIndex(0, 6, 2)].verified = false;
  return run;
}

void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(XFER_TEST_DATA_DIR) + "/" + name;
  const char* update = std::getenv("XFER_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing golden file " << path << " (XFER_UPDATE_GOLDEN=1 writes it)";
  std::ostringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str())
      << "differs from " << path << " (XFER_UPDATE_GOLDEN=1 rewrites it)";
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return lines;
}

}  // namespace xfer::report::testing
