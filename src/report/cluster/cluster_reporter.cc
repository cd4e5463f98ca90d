#include "report/cluster/cluster_reporter.h"

#include <fmt/format.h>

#include <exception>
#include <utility>

#include "report/cluster/cluster_csv.h"
#include "report/cluster/cluster_json.h"
#include "report/cluster/cluster_tables.h"
#include "report/json_report.h"

namespace xfer::report {

ClusterReporter::ClusterReporter(std::FILE* out, std::FILE* progress, std::string json_path,
                                 std::string csv_path)
    : out_(out),
      progress_(progress),
      json_path_(std::move(json_path)),
      csv_path_(std::move(csv_path)) {}

Status ClusterReporter::Prepare() {
  if (!json_path_.empty()) {
    Status writable = CheckJsonWritable(json_path_);
    if (!writable.ok()) return writable.WithContext("--json");
  }
  if (csv_path_.empty()) return Status::Ok();
  if (!json_path_.empty() && SameFile(json_path_, csv_path_)) {
    return InvalidArgument(
        fmt::format("--csv {}: same file as --json {}", csv_path_, json_path_));
  }
  auto target = PrepareOutput(csv_path_);
  if (!target.ok()) return target.status().WithContext("--csv");
  csv_ = std::move(*target);
  return Status::Ok();
}

void ClusterReporter::OnPlan(const cluster::ClusterRun& run) {
  Rewrite(run, false);
  try {
    Print(out_, RenderClusterPlan(run));
  } catch (const std::exception& e) {
    Keep(Internal(fmt::format("cluster plan: {}", e.what())));
  }
}

void ClusterReporter::OnGroupDone(const cluster::ClusterRun& run, size_t first, size_t count) {
  Rewrite(run, false);
  try {
    Print(progress_, RenderGroupLine(run, first, count) + "\n");
  } catch (const std::exception& e) {
    Keep(Internal(fmt::format("group line: {}", e.what())));
  }
}

void ClusterReporter::OnFinish(const cluster::ClusterRun& run) {
  Rewrite(run, true);
  try {
    // Why it ended, first and on stderr: a run that lost a rank is ended by
    // mpirun, which may cut what follows.
    if (!run.error.empty()) {
      Print(progress_, fmt::format("xfer: matrix: {}\n", RenderClusterEnding(run)));
    }
    Print(out_, RenderClusterTables(run));
  } catch (const std::exception& e) {
    Keep(Internal(fmt::format("cluster tables: {}", e.what())));
  }
}

void ClusterReporter::Rewrite(const cluster::ClusterRun& run, bool finished) {
  if (!json_path_.empty()) {
    try {
      Keep(WriteJsonFile(json_path_, ClusterJson(run)).WithContext("--json"));
    } catch (const std::exception& e) {
      Keep(Internal(fmt::format("--json {}: {}", json_path_, e.what())));
    }
  }
  // A stream cannot be rewritten: it gets the finished run, once.
  if (!csv_ || (!finished && csv_->mode != OutputMode::kReplace)) return;
  try {
    Keep(WriteOutput(*csv_, RenderClusterCsv(run)).WithContext("--csv"));
  } catch (const std::exception& e) {
    Keep(Internal(fmt::format("--csv {}: {}", csv_path_, e.what())));
  }
}

void ClusterReporter::Print(std::FILE* stream, const std::string& text) {
  if (stream == nullptr || text.empty()) return;
  std::fwrite(text.data(), 1, text.size(), stream);
  std::fflush(stream);
}

void ClusterReporter::Keep(const Status& status) {
  if (status_.ok() && !status.ok()) status_ = status;
}

}  // namespace xfer::report
