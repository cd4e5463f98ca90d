#include "report/matrix/matrix_csv.h"

#include <fmt/format.h>

#include <vector>

#include "bench/matrix/block_size.h"

namespace xfer::report {
namespace {

using matrix::CellResult;
using matrix::CellStatus;

constexpr std::string_view kHeader =
    "direction,op,initiator_memory,target_memory,transport,block_size_bytes,block_label,"
    "transfer_size_bytes,entries_per_sample,requests,path_transport,path_streams,status,"
    "median_GB_per_s,min_GB_per_s,max_GB_per_s,samples,warmup_samples,verified,reason";

std::string Gbps(const CellResult& cell, double gbps) {
  return cell.status == CellStatus::kOk ? fmt::format("{:.6f}", gbps) : std::string();
}

bool Ran(const CellResult& cell) {
  return cell.status == CellStatus::kOk || cell.status == CellStatus::kFailed;
}

std::string Row(const CellResult& cell, uint64_t transfer_size) {
  const bool has_path = !cell.path_transport.empty();
  const std::vector<std::string> fields = {
      cell.direction.Name(),
      cell.direction.op == OpCode::kWrite ? "write" : "read",
      cell.initiator_memory,
      cell.target_memory,
      cell.transport,
      fmt::format("{}", cell.block_size),
      matrix::BlockLabel(cell.block_size),
      fmt::format("{}", transfer_size),
      fmt::format("{}", cell.entries),
      fmt::format("{}", cell.requests),
      cell.path_transport,
      has_path ? fmt::format("{}", cell.path_streams) : std::string(),
      matrix::CellStatusName(cell.status),
      Gbps(cell, cell.median_gbps),
      Gbps(cell, cell.min_gbps),
      Gbps(cell, cell.max_gbps),
      Ran(cell) ? fmt::format("{}", cell.sample_seconds.size()) : std::string(),
      Ran(cell) ? fmt::format("{}", cell.warmup_seconds.size()) : std::string(),
      cell.verified ? (*cell.verified ? "true" : "false") : std::string(),
      cell.reason,
  };
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) line += ',';
    line += CsvField(fields[i]);
  }
  return line + "\n";
}

}  // namespace

std::string CsvField(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string RenderMatrixCsv(const matrix::MatrixRun& run) {
  std::string text(kHeader);
  text += '\n';
  for (const CellResult& cell : run.cells) text += Row(cell, run.config.transfer_size);
  return text;
}

std::string_view MatrixCsvHeader() { return kHeader; }

std::string MatrixCsvRow(const CellResult& cell, uint64_t transfer_size) {
  return Row(cell, transfer_size);
}

}  // namespace xfer::report
