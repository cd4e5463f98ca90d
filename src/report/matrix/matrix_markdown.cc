#include "report/matrix/matrix_markdown.h"

#include <fmt/format.h>

#include <numeric>
#include <vector>

#include "bench/matrix/block_size.h"
#include "bench/matrix/memory_placement.h"
#include "report/markdown_escape.h"
#include "report/matrix/matrix_table.h"

namespace xfer::report {
namespace {

using matrix::CellStatus;
using matrix::Direction;
using matrix::MatrixRun;

constexpr std::string_view kNotRun = "—";


std::string OrUnknown(const std::string& text) {
  return text.empty() ? "unknown" : MarkdownEscape(text);
}

std::string HostsLine(const MatrixRun& run) {
  const std::string& initiator_version = run.initiator.xfer_version;
  const std::string& target_version = run.target.xfer_version;
  const std::string versions =
      initiator_version == target_version
          ? fmt::format("xfer {}", OrUnknown(initiator_version))
          : fmt::format("xfer {} on the initiator, {} on the target", OrUnknown(initiator_version),
                        OrUnknown(target_version));
  std::string line =
      fmt::format("xfer matrix between initiator {} and target {} ({})",
                  OrUnknown(run.initiator.hostname), OrUnknown(run.target.hostname), versions);
  if (!run.start_time.empty()) line += ", started " + MarkdownEscape(run.start_time);
  return line + ".\n";
}

// "device" for 'D': what a direction letter stands for.
std::string_view ClassName(char letter) {
  const matrix::MemoryPlacement* placement = matrix::DefaultPlacement(letter);
  return placement != nullptr ? placement->name : std::string_view("unknown");
}

// "H2rD writes local host memory into remote device memory".
std::string DirectionSentence(const Direction& direction) {
  if (direction.op == OpCode::kWrite) {
    return fmt::format("{} writes local {} memory into remote {} memory", direction.Name(),
                       ClassName(direction.initiator), ClassName(direction.target));
  }
  return fmt::format("{} reads remote {} memory into local {} memory", direction.Name(),
                     ClassName(direction.target), ClassName(direction.initiator));
}

// The first direction of `op` in `run` whose letters differ (it shows
// both classes), else the first of `op`; nullptr when `run` has none.
const Direction* Example(const MatrixRun& run, OpCode op) {
  const Direction* first = nullptr;
  for (const Direction& direction : run.config.directions) {
    if (direction.op != op) continue;
    if (direction.initiator != direction.target) return &direction;
    if (first == nullptr) first = &direction;
  }
  return first;
}

std::string ColumnsLine(const MatrixRun& run) {
  std::string classes;
  for (char letter : matrix::PlacementLetters()) {
    if (!classes.empty()) classes += ", ";
    classes += fmt::format("{} {}", letter, ClassName(letter));
  }
  std::string line = fmt::format(
      "- Columns: direction, then transport. The letters name the memory ({}; H is {} on the "
      "initiator and {} on the target) and r marks the remote (target) side",
      classes, MarkdownEscape(run.config.memory), MarkdownEscape(run.config.remote_memory));
  std::string examples;
  for (OpCode op : {OpCode::kWrite, OpCode::kRead}) {
    const Direction* example = Example(run, op);
    if (example == nullptr) continue;
    examples += examples.empty() ? ": " : ", ";
    examples += DirectionSentence(*example);
  }
  return line + examples + ".\n";
}

std::string Plural(uint64_t count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

std::string HowToRead(const MatrixRun& run) {
  const matrix::MatrixConfig& config = run.config;
  std::string text = "How to read the table:\n";
  text += fmt::format("- Cells: bandwidth in GB/s (10^9 bytes/s), the median of {}",
                      Plural(config.loops, "sample"));
  text += config.warmup == 0
              ? ", without warm-up.\n"
              : fmt::format(" after {} (not counted).\n", Plural(config.warmup, "warm-up"));
  text += fmt::format(
      "- Every sample moves {} ({} bytes) as {} / Block entries, in {}.\n",
      SizeText(config.transfer_size), config.transfer_size, SizeText(config.transfer_size),
      config.batch == 1 ? "1 request" : fmt::format("{} requests in flight", config.batch));
  text += "- Block: the bytes per entry, in binary units (16K = 16 KiB, 2M = 2 MiB).\n";
  text += ColumnsLine(run);
  text += fmt::format(
      "- n/a: the path cannot run here; failed: it ran and failed (reasons below "
      "the table); {}: not run.\n",
      kNotRun);
  return text;
}

std::string Table(const MatrixRun& run) {
  const matrix::MatrixConfig& config = run.config;
  std::string header = "| Block |";
  std::string align = "| ---: |";
  for (const Direction& direction : config.directions) {
    for (const std::string& transport : run.transports) {
      header += fmt::format(" {}<br>{} |", direction.Name(), MarkdownEscape(transport));
      align += " ---: |";
    }
  }
  std::string text = header + "\n" + align + "\n";
  for (size_t b = 0; b < config.block_sizes.size(); ++b) {
    text += fmt::format("| {} |", matrix::BlockLabel(config.block_sizes[b]));
    for (size_t d = 0; d < config.directions.size(); ++d) {
      for (size_t t = 0; t < run.transports.size(); ++t) {
        const matrix::CellResult* cell = CellAt(run, t, d, b);
        text +=
            fmt::format(" {} |", cell != nullptr ? CellText(*cell, kNotRun) : std::string(kNotRun));
      }
    }
    text += '\n';
  }
  return text;
}

std::string Notes(const MatrixRun& run) {
  std::vector<size_t> scope(run.transports.size());
  std::iota(scope.begin(), scope.end(), size_t{0});
  std::string text;
  for (size_t t = 0; t < run.transports.size(); ++t) {
    text += fmt::format("- {} columns, {}\n", MarkdownEscape(run.transports[t]), MarkdownEscape(PathText(run, t)));
  }
  for (const CellNote& note : CellNotes(run, scope)) {
    std::string where;
    for (const std::string& item : note.where) {
      if (!where.empty()) where += ", ";
      where += MarkdownEscape(item);
    }
    text += fmt::format("- {} {}: {}\n", note.status == CellStatus::kFailed ? "failed" : "n/a",
                        where, MarkdownEscape(note.reason));
  }
  for (const matrix::SkippedTransport& skipped : run.skipped) {
    text += fmt::format("- not usable here: {}: {}\n", MarkdownEscape(skipped.name),
                        skipped.reason.empty() ? "no reason given" : MarkdownEscape(skipped.reason));
  }
  if (run.config.verify) text += fmt::format("- {}\n", MarkdownEscape(VerifyText(run)));
  if (run.outcome == matrix::RunOutcome::kFailed ||
      run.outcome == matrix::RunOutcome::kInterrupted) {
    text += fmt::format("- run {}: {}\n", matrix::RunOutcomeName(run.outcome),
                        run.error.empty() ? "no reason given" : MarkdownEscape(run.error));
  }
  return text;
}

}  // namespace

std::string RenderMatrixMarkdown(const MatrixRun& run) {
  std::string text = HostsLine(run) + "\n" + HowToRead(run) + "\n" + Table(run);
  const std::string notes = Notes(run);
  if (!notes.empty()) text += "\n" + notes;
  return text;
}

}  // namespace xfer::report
