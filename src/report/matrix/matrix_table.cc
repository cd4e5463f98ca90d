#include "report/matrix/matrix_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <utility>

#include "bench/matrix/block_size.h"
#include "report/matrix/anchor_table.h"
#include "report/rail_timeline_report.h"

namespace xfer::report {
namespace {

using matrix::CellResult;
using matrix::CellStatus;
using matrix::MatrixRun;

constexpr std::string_view kNotRun = "-";
// Wide enough for "1234.567" so that columns line up across transports.
constexpr size_t kMinCellWidth = 8;

std::string Plural(uint64_t count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

// Reasons come from errors and may span lines; a note is one line.
std::string OneLine(std::string_view text) {
  std::string line(text);
  std::replace_if(
      line.begin(), line.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
  return line.empty() ? "no reason given" : line;
}

std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string text;
  for (const std::string& item : items) {
    if (!text.empty()) text += separator;
    text += item;
  }
  return text;
}

bool Unfinished(const MatrixRun& run) {
  return run.outcome == matrix::RunOutcome::kFailed ||
         run.outcome == matrix::RunOutcome::kInterrupted;
}

std::string TableCellText(const MatrixRun& run, size_t transport, size_t direction, size_t block) {
  const CellResult* cell = CellAt(run, transport, direction, block);
  return cell != nullptr ? CellText(*cell, kNotRun) : std::string(kNotRun);
}

// The grid of one transport: a row per block, a column per direction,
// right-aligned, each cell's text from `cell_text(direction, block)`.
void AppendGrid(const MatrixRun& run, const std::function<std::string(size_t, size_t)>& cell_text,
                std::string& text) {
  const matrix::MatrixConfig& config = run.config;
  size_t block_width = std::string_view("Block").size();
  for (uint64_t block : config.block_sizes) {
    block_width = std::max(block_width, matrix::BlockLabel(block).size());
  }
  std::vector<std::string> names;
  std::vector<size_t> widths;
  for (size_t d = 0; d < config.directions.size(); ++d) {
    names.push_back(config.directions[d].Name());
    size_t width = std::max(kMinCellWidth, names.back().size());
    for (size_t b = 0; b < config.block_sizes.size(); ++b) {
      width = std::max(width, cell_text(d, b).size());
    }
    widths.push_back(width);
  }

  text += fmt::format(" {:>{}}", "Block", block_width);
  for (size_t d = 0; d < names.size(); ++d) text += fmt::format("  {:>{}}", names[d], widths[d]);
  text += '\n';
  for (size_t b = 0; b < config.block_sizes.size(); ++b) {
    text += fmt::format(" {:>{}}", matrix::BlockLabel(config.block_sizes[b]), block_width);
    for (size_t d = 0; d < names.size(); ++d) {
      text += fmt::format("  {:>{}}", cell_text(d, b), widths[d]);
    }
    text += '\n';
  }
}

void TransportTable(const MatrixRun& run, size_t transport, std::string& text) {
  text += fmt::format("\n--- {} ({}) ---\n", run.transports[transport], PathText(run, transport));
  AppendGrid(
      run, [&](size_t d, size_t b) { return TableCellText(run, transport, d, b); }, text);
  const size_t scope[] = {transport};
  for (const CellNote& note : CellNotes(run, scope)) {
    text += fmt::format(" {}  {}: {}\n", note.status == CellStatus::kFailed ? "failed" : "n/a",
                        Join(note.where, " "), note.reason);
  }
}

// --efficiency: the transport's cells as percentages of their ceilings,
// "-" where a cell has no figure or its path no known ceiling, then each
// distinct ceiling source once.
void EfficiencyTable(const MatrixRun& run, size_t transport, std::string& text) {
  text += fmt::format(" efficiency, % of the ceiling:\n");
  std::vector<std::string> sources;
  AppendGrid(
      run,
      [&](size_t d, size_t b) -> std::string {
        const CellResult* cell = CellAt(run, transport, d, b);
        if (cell == nullptr || !cell->ceiling) return "-";
        if (std::find(sources.begin(), sources.end(), cell->ceiling->source) == sources.end()) {
          sources.push_back(cell->ceiling->source);
        }
        const std::optional<double> fraction =
            cell->status == CellStatus::kOk ? cell->ceiling->Efficiency(cell->median_gbps * 1e9)
                                            : std::nullopt;
        return fraction ? fmt::format("{:.1f}", *fraction * 100.0) : "-";
      },
      text);
  for (const std::string& source : sources) text += fmt::format(" ceiling: {}\n", OneLine(source));
}

// CellNotes' working state: one reason and the cells of the scope it
// covers, indexed [scope position][direction][block].
struct NoteGroup {
  CellNote note;
  std::vector<bool> covered;
};

// note.where for `group`, as CellNote documents it.
void FillWhere(const MatrixRun& run, std::span<const size_t> scope, NoteGroup& group) {
  const size_t directions = run.config.directions.size();
  const size_t blocks = run.config.block_sizes.size();
  for (size_t d = 0; d < directions; ++d) {
    std::vector<std::vector<std::string>> labels(scope.size());
    bool everywhere = true;
    for (size_t s = 0; s < scope.size(); ++s) {
      for (size_t b = 0; b < blocks; ++b) {
        if (group.covered[(s * directions + d) * blocks + b]) {
          labels[s].push_back(matrix::BlockLabel(run.config.block_sizes[b]));
        }
      }
      everywhere = everywhere && labels[s].size() == blocks;
    }
    const std::string name = run.config.directions[d].Name();
    if (everywhere) {
      group.note.where.push_back(name);
      continue;
    }
    for (size_t s = 0; s < scope.size(); ++s) {
      if (labels[s].empty()) continue;
      std::string item = name;
      if (scope.size() > 1) item += fmt::format(" {}", run.transports[scope[s]]);
      if (labels[s].size() != blocks) item += fmt::format("@{}", Join(labels[s], ","));
      group.note.where.push_back(std::move(item));
    }
  }
}

}  // namespace

std::string SizeText(uint64_t bytes) {
  constexpr uint64_t kKiB = 1024;
  if (bytes != 0 && bytes % (kKiB * kKiB * kKiB) == 0) return fmt::format("{} GiB", bytes >> 30);
  if (bytes != 0 && bytes % (kKiB * kKiB) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes != 0 && bytes % kKiB == 0) return fmt::format("{} KiB", bytes >> 10);
  return Plural(bytes, "byte");
}

std::string MethodText(const matrix::MatrixConfig& config) {
  std::string text = fmt::format("median of {}", Plural(config.loops, "sample"));
  text += config.warmup == 0 ? ", no warm-up"
                             : fmt::format(" after {}", Plural(config.warmup, "warm-up"));
  text += fmt::format(", {} per sample", SizeText(config.transfer_size));
  if (config.batch > 1) text += fmt::format(" in {} requests", config.batch);
  return text;
}

std::string CellText(const CellResult& cell, std::string_view not_run) {
  switch (cell.status) {
    case CellStatus::kOk: return fmt::format("{:.3f}", cell.median_gbps);
    case CellStatus::kUnsupported: return "n/a";
    case CellStatus::kFailed: return "failed";
    case CellStatus::kNotRun: break;
  }
  return std::string(not_run);
}

const CellResult* CellAt(const MatrixRun& run, size_t transport, size_t direction, size_t block) {
  const size_t index = run.CellIndex(transport, direction, block);
  return index < run.cells.size() ? &run.cells[index] : nullptr;
}

std::string PathText(const MatrixRun& run, size_t transport) {
  std::vector<std::pair<std::string, uint32_t>> paths;
  // One engine setting covers every cell of a run: the initiator's
  // buffers were staged in all of them or in none.
  bool staged = false;
  size_t rails = 1;  // one connection per column: its cells share the rails
  for (size_t d = 0; d < run.config.directions.size(); ++d) {
    for (size_t b = 0; b < run.config.block_sizes.size(); ++b) {
      const CellResult* cell = CellAt(run, transport, d, b);
      if (cell == nullptr || cell->status != CellStatus::kOk) continue;
      staged = staged || cell->path_staged;
      rails = std::max(rails, cell->path_rails.size());
      std::pair<std::string, uint32_t> path{cell->path_transport, cell->path_streams};
      if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
    }
  }
  if (paths.empty()) return "path: not measured";
  std::vector<std::string> items;
  for (const auto& [name, streams] : paths) {
    items.push_back(
        fmt::format("{}, {}", name.empty() ? "unknown" : name, Plural(streams, "stream")));
  }
  return fmt::format("{}: {}{}{}", paths.size() == 1 ? "path" : "paths", Join(items, "; "),
                     rails > 1 ? fmt::format(", {} rails", rails) : "",
                     staged ? ", staged through pinned host memory" : "");
}

std::string VerifyText(const MatrixRun& run) {
  size_t ok = 0;
  size_t verified = 0;
  std::vector<std::string> mismatched;
  for (const CellResult& cell : run.cells) {
    if (cell.status != CellStatus::kOk) continue;
    ++ok;
    if (cell.verified == true) ++verified;
    if (cell.verified == false) {
      mismatched.push_back(fmt::format("{} {} {}", cell.transport, cell.direction.Name(),
                                       matrix::BlockLabel(cell.block_size)));
    }
  }
  std::string text =
      fmt::format("verify: {} of {} measured cells verified byte for byte", verified, ok);
  if (!mismatched.empty()) text += "; did not match: " + Join(mismatched, ", ");
  return text;
}

std::vector<CellNote> CellNotes(const MatrixRun& run, std::span<const size_t> scope) {
  const size_t directions = run.config.directions.size();
  const size_t blocks = run.config.block_sizes.size();
  std::vector<NoteGroup> groups;
  for (CellStatus status : {CellStatus::kUnsupported, CellStatus::kFailed}) {
    const auto first = static_cast<std::ptrdiff_t>(groups.size());
    for (size_t s = 0; s < scope.size(); ++s) {
      for (size_t d = 0; d < directions; ++d) {
        for (size_t b = 0; b < blocks; ++b) {
          const CellResult* cell = CellAt(run, scope[s], d, b);
          if (cell == nullptr || cell->status != status) continue;
          std::string reason = OneLine(cell->reason);
          auto group = std::find_if(groups.begin() + first, groups.end(),
                                    [&](const NoteGroup& g) { return g.note.reason == reason; });
          if (group == groups.end()) {
            groups.push_back({{status, std::move(reason), {}},
                              std::vector<bool>(scope.size() * directions * blocks)});
            group = groups.end() - 1;
          }
          group->covered[(s * directions + d) * blocks + b] = true;
        }
      }
    }
  }
  std::vector<CellNote> notes;
  for (NoteGroup& group : groups) {
    FillWhere(run, scope, group);
    notes.push_back(std::move(group.note));
  }
  return notes;
}

std::string RenderMatrixTables(const MatrixRun& run) {
  std::string text = fmt::format(" xfer matrix: GB/s = 10^9 B/s, {}\n", MethodText(run.config));
  for (size_t t = 0; t < run.transports.size(); ++t) {
    TransportTable(run, t, text);
    if (run.config.efficiency) EfficiencyTable(run, t, text);
  }
  AppendAnchorTable(run, text);
  for (const matrix::MatrixRun::ColumnTimeline& column : run.rail_timelines) {
    text += fmt::format("\n {}'s rails, while its cells ran:\n", column.transport);
    text += RailTimelineLines(column.timeline);
  }
  if (!run.skipped.empty() || run.config.verify || Unfinished(run)) text += '\n';
  for (const matrix::SkippedTransport& skipped : run.skipped) {
    text += fmt::format(" not usable here: {}: {}\n", skipped.name, OneLine(skipped.reason));
  }
  if (run.config.verify) text += fmt::format(" {}\n", VerifyText(run));
  if (Unfinished(run)) {
    text += fmt::format(" run {}: {}\n", matrix::RunOutcomeName(run.outcome), OneLine(run.error));
  }
  return text;
}

}  // namespace xfer::report
