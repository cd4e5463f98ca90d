#include "bench/matrix/local_anchor.h"

#include <algorithm>

#include "bench/matrix/cell_statistic.h"

namespace xfer::matrix {
namespace {

constexpr LocalCopy kCopies[] = {LocalCopy::kHostToDevice, LocalCopy::kDeviceToHost,
                                 LocalCopy::kDeviceToDevice};

bool TouchesDevice(const MatrixConfig& config) {
  return std::any_of(config.directions.begin(), config.directions.end(),
                     [](const Direction& d) { return d.initiator == 'D' || d.target == 'D'; });
}

bool Unusable(const Status& status) {
  return status.code() == StatusCode::kFailedPrecondition ||
         status.code() == StatusCode::kNotSupported;
}

Status MeasureOne(const MatrixConfig& config, AnchorResult& anchor) {
  const auto copies = static_cast<uint32_t>(config.transfer_size / anchor.block_size);
  for (uint32_t k = 0; k < config.warmup + config.loops; ++k) {
    auto seconds = TimeLocalCopies(anchor.copy, config.cuda_device, anchor.block_size, copies);
    if (!seconds.ok()) return seconds.status();
    if (k >= config.warmup) anchor.sample_seconds.push_back(*seconds);
  }
  auto stat = ComputeCellStatistic(config.transfer_size, anchor.sample_seconds);
  if (!stat.ok()) return stat.status();
  anchor.median_gbps = stat->median_gbps;
  anchor.min_gbps = stat->min_gbps;
  anchor.max_gbps = stat->max_gbps;
  return Status::Ok();
}

}  // namespace

std::vector<AnchorResult> PlanAnchors(const MatrixConfig& config) {
  std::vector<AnchorResult> anchors;
  if (!TouchesDevice(config)) return anchors;
  for (LocalCopy copy : kCopies) {
    for (uint64_t block : config.block_sizes) {
      AnchorResult anchor;
      anchor.copy = copy;
      anchor.block_size = block;
      anchors.push_back(anchor);
    }
  }
  return anchors;
}

void MeasureAnchors(const MatrixConfig& config, std::vector<AnchorResult>& anchors) {
  std::string unusable;
  for (AnchorResult& anchor : anchors) {
    if (!unusable.empty()) {
      anchor.status = CellStatus::kUnsupported;
      anchor.reason = unusable;
      continue;
    }
    Status status = MeasureOne(config, anchor);
    if (status.ok()) {
      anchor.status = CellStatus::kOk;
    } else if (Unusable(status)) {
      anchor.status = CellStatus::kUnsupported;
      anchor.reason = unusable = status.message();
    } else {
      anchor.status = CellStatus::kFailed;
      anchor.reason = status.ToString();
    }
    if (anchor.status != CellStatus::kOk) anchor.sample_seconds.clear();
  }
}

}  // namespace xfer::matrix
