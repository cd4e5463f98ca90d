#include "report/matrix/matrix_reporter.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
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

std::string TmpPath(const std::string& path) { return path + ".tmp"; }

// "--json out.json: <what>: <strerror(error)>".
Status FileError(std::string_view flag, const std::string& path, std::string_view what, int error) {
  return IoError(fmt::format("{} {}: {}: {}", flag, path, what, std::strerror(error)));
}

// Creates or truncates `path`; errno is set when it returns false.
bool Touch(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  return ::close(fd) == 0;
}

// Writes all of `text` to `path`, created or truncated; errno is set when
// it returns false.
bool WriteWhole(const std::string& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int saved = errno;
      ::close(fd);
      errno = saved;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return ::close(fd) == 0;
}

bool IsStream(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && (S_ISFIFO(info.st_mode) || S_ISCHR(info.st_mode));
}

}  // namespace

MatrixReporter::MatrixReporter(std::FILE* out, std::FILE* progress, bool show_progress)
    : out_(out), progress_(progress), show_progress_(show_progress && progress != nullptr) {}

Status MatrixReporter::Prepare(const matrix::MatrixConfig& config) {
  outputs_.clear();
  const std::pair<Format, Output> asked[] = {
      {Format::kJson, {"--json", config.json_path, false}},
      {Format::kCsv, {"--csv", config.csv_path, false}},
      {Format::kMarkdown, {"--markdown", config.markdown_path, false}},
  };
  for (const auto& [format, wanted] : asked) {
    if (wanted.path.empty()) continue;
    Output output = wanted;
    for (const auto& [other_format, other] : outputs_) {
      if (other.path == output.path) {
        return InvalidArgument(
            fmt::format("{} {}: same file as {}", output.flag, output.path, other.flag));
      }
    }
    output.streamed = IsStream(output.path);
    if (output.streamed) {
      if (::access(output.path.c_str(), W_OK) != 0) {
        return FileError(output.flag, output.path, "cannot write", errno);
      }
    } else {
      if (!Touch(output.path)) return FileError(output.flag, output.path, "cannot write", errno);
      const std::string tmp = TmpPath(output.path);
      if (!Touch(tmp)) {
        const int error = errno;
        return FileError(output.flag, output.path, fmt::format("cannot write {}", tmp), error);
      }
      ::unlink(tmp.c_str());
    }
    outputs_.push_back({format, std::move(output)});
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
    if (!finished && (format == Format::kMarkdown || output.streamed)) continue;
    try {
      WriteOutput(output, format, run);
    } catch (const std::exception& e) {
      Keep(Internal(fmt::format("{} {}: {}", output.flag, output.path, e.what())));
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
  if (output.streamed) {
    if (!WriteWhole(output.path, text)) {
      Keep(FileError(output.flag, output.path, "cannot write", errno));
    }
    return;
  }
  const std::string tmp = TmpPath(output.path);
  if (!WriteWhole(tmp, text)) {
    const int error = errno;
    ::unlink(tmp.c_str());
    Keep(FileError(output.flag, output.path, fmt::format("cannot write {}", tmp), error));
    return;
  }
  if (::rename(tmp.c_str(), output.path.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    Keep(FileError(output.flag, output.path, fmt::format("cannot rename {} over it", tmp), error));
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
