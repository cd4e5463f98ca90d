#include "report/matrix/matrix_reporter.h"

#include <fmt/format.h>

#include <exception>
#include <string_view>

#include "report/matrix/matrix_csv.h"
#include "report/matrix/matrix_json.h"
#include "report/matrix/matrix_markdown.h"
#include "report/matrix/matrix_progress.h"
#include "report/matrix/matrix_table.h"

namespace xfer::report {
namespace {

constexpr const char* kClearLine = "\x1b[K";

// "--json out.json: <what>".
Status FileError(std::string_view flag, const Status& status) {
  return Status(status.code(), fmt::format("{} {}", flag, status.message()));
}

}  // namespace

MatrixReporter::MatrixReporter(std::FILE* out, std::FILE* progress, bool show_progress)
    : out_(out), progress_(progress), show_progress_(show_progress && progress != nullptr) {}

Status MatrixReporter::Prepare(const matrix::MatrixConfig& config) {
  outputs_.clear();
  struct Asked {
    Format format;
    const char* flag;
    const std::string& path;
  };
  const Asked asked[] = {
      {Format::kJson, "--json", config.json_path},
      {Format::kCsv, "--csv", config.csv_path},
      {Format::kMarkdown, "--markdown", config.markdown_path},
  };
  for (const Asked& wanted : asked) {
    if (wanted.path.empty()) continue;
    for (const auto& [other_format, other] : outputs_) {
      if (SameFile(other.target.path, wanted.path)) {
        return InvalidArgument(fmt::format("{} {}: same file as {} {}", wanted.flag, wanted.path,
                                           other.flag, other.target.path));
      }
    }
    auto target = PrepareOutput(wanted.path);
    if (!target.ok()) return FileError(wanted.flag, target.status());
    outputs_.push_back({wanted.format, Output{wanted.flag, std::move(*target)}});
  }
  return Status::Ok();
}

void MatrixReporter::OnPlan(const matrix::MatrixRun& run) {
  start_ = std::chrono::steady_clock::now();
  Rewrite(run, false);
}

void MatrixReporter::OnSample(const matrix::MatrixRun& run, size_t cell, uint32_t done,
                              uint32_t total) {
  if (!show_progress_) return;
  try {
    ShowProgress(ProgressLine(run, cell, done, total, ElapsedSeconds()));
  } catch (const std::exception& e) {
    Keep(Internal(fmt::format("progress line: {}", e.what())));
  }
}

void MatrixReporter::OnCellDone(const matrix::MatrixRun& run, size_t cell) {
  Rewrite(run, false);
  if (!show_progress_) return;
  try {
    const uint32_t samples = run.config.warmup + run.config.loops;
    ShowProgress(ProgressLine(run, cell, samples, samples, ElapsedSeconds()));
  } catch (const std::exception& e) {
    Keep(Internal(fmt::format("progress line: {}", e.what())));
  }
}

void MatrixReporter::OnFinish(const matrix::MatrixRun& run) {
  Rewrite(run, true);
  ClearProgress();
  // A run that failed before it had a grid (the target refused, or could
  // not be reached) has no table to print; its error goes to stderr.
  if (out_ == nullptr || run.cells.empty()) return;
  try {
    const std::string tables = RenderMatrixTables(run);
    std::fwrite(tables.data(), 1, tables.size(), out_);
    std::fflush(out_);
  } catch (const std::exception& e) {
    Keep(Internal(fmt::format("terminal tables: {}", e.what())));
  }
}

void MatrixReporter::Rewrite(const matrix::MatrixRun& run, bool finished) {
  for (const auto& [format, output] : outputs_) {
    // The Markdown file and the streamed ones cannot be rewritten: once.
    if (!finished && (format == Format::kMarkdown || output.streamed())) continue;
    try {
      WriteOutput(output, format, run);
    } catch (const std::exception& e) {
      Keep(Internal(fmt::format("{} {}: {}", output.flag, output.target.path, e.what())));
    }
  }
}

void MatrixReporter::WriteOutput(const Output& output, Format format,
                                 const matrix::MatrixRun& run) {
  std::string text;
  switch (format) {
    case Format::kJson:
      text = MatrixJson(run).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
      break;
    case Format::kCsv: text = RenderMatrixCsv(run); break;
    case Format::kMarkdown: text = RenderMatrixMarkdown(run); break;
  }
  if (Status written = xfer::WriteOutput(output.target, text); !written.ok()) {
    Keep(FileError(output.flag, written));
  }
}

void MatrixReporter::ShowProgress(const std::string& line) {
  std::fprintf(progress_, "\r%s%s", line.c_str(), kClearLine);
  std::fflush(progress_);
  progress_shown_ = true;
}

void MatrixReporter::ClearProgress() {
  if (!progress_shown_) return;
  std::fprintf(progress_, "\r%s", kClearLine);
  std::fflush(progress_);
  progress_shown_ = false;
}

double MatrixReporter::ElapsedSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void MatrixReporter::Keep(const Status& status) {
  if (status_.ok() && !status.ok()) status_ = status;
}

}  // namespace xfer::report
