// The MatrixObserver behind `xfer matrix`: the progress line while it
// runs, the --json/--csv/--markdown files, and the terminal tables at the
// end.
//
// Files. Prepare() checks, writing nothing, that every file asked for can
// be written (common/output_file.h), so that a path that cannot be written
// fails the command at once instead of after an hour of measuring, and
// refuses two flags that name one file (after following links). OnPlan and
// every OnCellDone rewrite the JSON and CSV files whole, atomically (a
// temporary file beside the file, or beside a link's target, renamed over
// it), so an interrupted or killed run leaves files that parse and hold
// every cell finished so far; readers never see half a file. The Markdown
// file is written once, by OnFinish. A path that names a stream (a FIFO, a
// device, /dev/stdout, "-") cannot be renamed over: it is written once,
// directly, by OnFinish.
//
// Progress. With show_progress, OnSample and OnCellDone redraw one line
// ("\r" + ProgressLine + "\x1b[K", report/matrix/matrix_progress.h) on
// `progress`; the line is erased before anything is printed to `out` and
// at finish. Without it nothing is written to `progress`.
//
// Errors. Writing never throws out of the class and never stops the run: a
// file that fails is retried at the next rewrite, and status() keeps the
// first error met. Not thread-safe: MatrixObserver calls come from one
// thread.
#ifndef XFER_REPORT_MATRIX_MATRIX_REPORTER_H_
#define XFER_REPORT_MATRIX_MATRIX_REPORTER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "common/output_file.h"
#include "bench/matrix/matrix_config.h"
#include "bench/matrix/matrix_observer.h"
#include "bench/matrix/matrix_run.h"
#include "xfer/status.h"

namespace xfer::report {

class MatrixReporter final : public matrix::MatrixObserver {
 public:
  // `out` (stdout) gets the tables, `progress` (stderr) the progress line;
  // both are borrowed and must outlive the reporter. Either may be null:
  // nothing is printed there.
  MatrixReporter(std::FILE* out, std::FILE* progress, bool show_progress);

  // Takes the output paths of `config` (json_path, csv_path,
  // markdown_path; "" = not asked for) and checks, writing nothing, that
  // each can be written (common/output_file.h: PrepareOutput). Only files
  // Prepare accepted are written later; call it before OnPlan. Errors:
  // IoError naming the flag and path, e.g. "--json out.json: cannot create
  // a file there: Permission denied"; InvalidArgument for a directory, or
  // when two flags name one file, links followed ("--csv a: same file as
  // --json b").
  Status Prepare(const matrix::MatrixConfig& config);

  void OnPlan(const matrix::MatrixRun& run) override;
  void OnSample(const matrix::MatrixRun& run, size_t cell, uint32_t done, uint32_t total) override;
  void OnCellDone(const matrix::MatrixRun& run, size_t cell) override;
  // Writes the final JSON and CSV, the Markdown file, then prints
  // RenderMatrixTables to `out` (nothing when the run has no cells).
  void OnFinish(const matrix::MatrixRun& run) override;

  // Ok, or the first file error since Prepare (the same messages).
  Status status() const { return status_; }

 private:
  struct Output {
    const char* flag;  // "--json"
    OutputTarget target;
    bool streamed() const { return target.mode != OutputMode::kReplace; }  // written once
  };
  enum class Format { kJson, kCsv, kMarkdown };

  void Rewrite(const matrix::MatrixRun& run, bool finished);
  void WriteOutput(const Output& output, Format format, const matrix::MatrixRun& run);
  void ShowProgress(const std::string& line);
  void ClearProgress();
  double ElapsedSeconds() const;
  void Keep(const Status& status);

  std::FILE* out_;
  std::FILE* progress_;
  const bool show_progress_;
  std::vector<std::pair<Format, Output>> outputs_;  // accepted by Prepare
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  bool progress_shown_ = false;
  Status status_;
};

}  // namespace xfer::report

#endif  // XFER_REPORT_MATRIX_MATRIX_REPORTER_H_
