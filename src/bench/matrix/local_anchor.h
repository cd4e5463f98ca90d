// The local copies that anchor a matrix's device cells, as nvbandwidth
// measures them: host-to-device, device-to-host and device-to-device
// copies on the initiator's GPU, with no transport in between. A D2rD
// figure means little until it is set beside what the GPU's own copy
// engines do on one device.
//
// Each anchor cell is laid out as a matrix cell is: one sample copies
// transfer_size bytes as transfer_size/block copies of one block each,
// timed with CUDA events; the cell is the median of --loops samples after
// --warmup untimed ones, in GB/s = 10^9 B/s, each byte counted once (a D2D
// byte is read and written, so HBM traffic is twice the figure).
#ifndef XFER_BENCH_MATRIX_LOCAL_ANCHOR_H_
#define XFER_BENCH_MATRIX_LOCAL_ANCHOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "bench/matrix/cell_result.h"
#include "bench/matrix/matrix_config.h"
#include "xfer/device.h"

namespace xfer::matrix {

struct AnchorResult {
  LocalCopy copy = LocalCopy::kHostToDevice;
  uint64_t block_size = 0;
  CellStatus status = CellStatus::kNotRun;
  std::vector<double> sample_seconds;
  double median_gbps = 0;
  double min_gbps = 0;
  double max_gbps = 0;
  std::string reason;  // unsupported or failed: why
};

// The anchors a run measures: one per (copy, block size) when its
// directions touch device memory, none otherwise. In copy order H2D, D2H,
// D2D, then ascending block size.
std::vector<AnchorResult> PlanAnchors(const MatrixConfig& config);

// Measures every planned anchor on config.cuda_device. Where the GPU cannot
// be used (the first copy fails with kFailedPrecondition or kNotSupported)
// every anchor reads unsupported with that reason; any other error fails
// that anchor alone and the next ones still run.
void MeasureAnchors(const MatrixConfig& config, std::vector<AnchorResult>& anchors);

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_LOCAL_ANCHOR_H_
