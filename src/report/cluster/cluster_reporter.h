// The ClusterObserver of rank 0 behind `mpirun -np N xfer matrix --scheme`:
// the plan on `out` before any cell, one line per finished group on
// `progress`, the --json and --csv files rewritten whole after every group
// (so a run that is killed or loses a rank leaves files that parse and hold
// every cell finished so far; a stream, "-" or a FIFO, is written once, at
// the end), and the tables on `out` at the end.
//
// Errors. Writing never throws out of the class and never stops the run;
// status() keeps the first error met. Not thread-safe: one thread calls it.
#ifndef XFER_REPORT_CLUSTER_CLUSTER_REPORTER_H_
#define XFER_REPORT_CLUSTER_CLUSTER_REPORTER_H_

#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>

#include "bench/cluster/cluster_observer.h"
#include "bench/cluster/cluster_run.h"
#include "common/output_file.h"
#include "xfer/status.h"

namespace xfer::report {

class ClusterReporter final : public cluster::ClusterObserver {
 public:
  // `out` and `progress` are borrowed and must outlive the reporter; null:
  // nothing is printed there. A path "" = no such file.
  ClusterReporter(std::FILE* out, std::FILE* progress, std::string json_path,
                  std::string csv_path = {});

  // Checks that the files can be written, before any rank measures.
  // Errors: kIoError naming the flag and the path; kInvalidArgument for
  // --json and --csv naming one file.
  Status Prepare();

  void OnPlan(const cluster::ClusterRun& run) override;
  void OnGroupDone(const cluster::ClusterRun& run, size_t first, size_t count) override;
  void OnFinish(const cluster::ClusterRun& run) override;

  Status status() const { return status_; }

 private:
  void Rewrite(const cluster::ClusterRun& run, bool finished);
  void Print(std::FILE* stream, const std::string& text);
  void Keep(const Status& status);

  std::FILE* out_;
  std::FILE* progress_;
  const std::string json_path_;
  const std::string csv_path_;
  std::optional<OutputTarget> csv_;  // set by Prepare when --csv was given
  Status status_;
};

}  // namespace xfer::report

#endif  // XFER_REPORT_CLUSTER_CLUSTER_REPORTER_H_
