#include "report/matrix/anchor_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "bench/matrix/block_size.h"

namespace xfer::report {
namespace {

using matrix::AnchorResult;
using matrix::CellStatus;

constexpr size_t kCellWidth = 9;

std::string AnchorText(const AnchorResult& anchor) {
  switch (anchor.status) {
    case CellStatus::kOk: return fmt::format("{:.3f}", anchor.median_gbps);
    case CellStatus::kUnsupported: return "n/a";
    case CellStatus::kFailed: return "failed";
    case CellStatus::kNotRun: break;
  }
  return "-";
}

// The copies in run order, each once.
std::vector<LocalCopy> Copies(const matrix::MatrixRun& run) {
  std::vector<LocalCopy> copies;
  for (const AnchorResult& anchor : run.anchors) {
    if (std::find(copies.begin(), copies.end(), anchor.copy) == copies.end()) {
      copies.push_back(anchor.copy);
    }
  }
  return copies;
}

const AnchorResult* Find(const matrix::MatrixRun& run, LocalCopy copy, uint64_t block) {
  for (const AnchorResult& anchor : run.anchors) {
    if (anchor.copy == copy && anchor.block_size == block) return &anchor;
  }
  return nullptr;
}

void AppendNotes(const matrix::MatrixRun& run, std::string& text) {
  std::vector<std::string> reasons;
  for (const AnchorResult& anchor : run.anchors) {
    const bool noted = anchor.status == CellStatus::kUnsupported || anchor.status == CellStatus::kFailed;
    if (noted && std::find(reasons.begin(), reasons.end(), anchor.reason) == reasons.end()) {
      reasons.push_back(anchor.reason);
    }
  }
  for (const std::string& reason : reasons) {
    std::vector<std::string> where;
    const char* label = "n/a";
    for (LocalCopy copy : Copies(run)) {
      for (const AnchorResult& anchor : run.anchors) {
        if (anchor.copy == copy && anchor.reason == reason) {
          where.push_back(LocalCopyName(copy));
          if (anchor.status == CellStatus::kFailed) label = "failed";
          break;
        }
      }
    }
    text += fmt::format(" {}  {}: {}\n", label, fmt::join(where, " "),
                        reason.empty() ? "no reason given" : reason);
  }
}

}  // namespace

void AppendAnchorTable(const matrix::MatrixRun& run, std::string& text) {
  if (run.anchors.empty()) return;
  text += fmt::format(
      "\n--- local copies on CUDA device {} (copy engine, CUDA events; no transport) ---\n",
      run.config.cuda_device);
  size_t block_width = std::string_view("Block").size();
  for (uint64_t block : run.config.block_sizes) {
    block_width = std::max(block_width, matrix::BlockLabel(block).size());
  }
  const std::vector<LocalCopy> copies = Copies(run);
  text += fmt::format(" {:>{}}", "Block", block_width);
  for (LocalCopy copy : copies) text += fmt::format("  {:>{}}", LocalCopyName(copy), kCellWidth);
  text += '\n';
  for (uint64_t block : run.config.block_sizes) {
    text += fmt::format(" {:>{}}", matrix::BlockLabel(block), block_width);
    for (LocalCopy copy : copies) {
      const AnchorResult* anchor = Find(run, copy, block);
      text += fmt::format("  {:>{}}", anchor != nullptr ? AnchorText(*anchor) : "-", kCellWidth);
    }
    text += '\n';
  }
  AppendNotes(run, text);
}

nlohmann::json AnchorsJson(const matrix::MatrixRun& run) {
  using nlohmann::json;
  if (run.anchors.empty()) return json(nullptr);
  json cells = json::array();
  for (const AnchorResult& anchor : run.anchors) {
    const bool ok = anchor.status == CellStatus::kOk;
    cells.push_back({{"copy", LocalCopyName(anchor.copy)},
                     {"block_size", anchor.block_size},
                     {"status", matrix::CellStatusName(anchor.status)},
                     {"median_gbps", ok ? json(anchor.median_gbps) : json(nullptr)},
                     {"min_gbps", ok ? json(anchor.min_gbps) : json(nullptr)},
                     {"max_gbps", ok ? json(anchor.max_gbps) : json(nullptr)},
                     {"sample_seconds", anchor.sample_seconds},
                     {"reason", anchor.reason.empty() ? json(nullptr) : json(anchor.reason)}});
  }
  return json{{"device", run.config.cuda_device}, {"cells", std::move(cells)}};
}

}  // namespace xfer::report
