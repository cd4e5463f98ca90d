// The ClusterObserver of rank 0 behind `mpirun -np N xfer matrix --scheme`:
// the plan on `out` before any cell, one line per finished group on
// `progress`, the --json file rewritten whole after every group (so a run
// that is killed or loses a rank leaves a file that parses and holds every
// cell finished so far), and the tables on `out` at the end.
//
// Errors. Writing never throws out of the class and never stops the run;
// status() keeps the first error met. Not thread-safe: one thread calls it.
#ifndef XFER_REPORT_CLUSTER_CLUSTER_REPORTER_H_
#define XFER_REPORT_CLUSTER_CLUSTER_REPORTER_H_

#include <cstddef>
#include <cstdio>
#include <string>

#include "bench/cluster/cluster_observer.h"
#include "bench/cluster/cluster_run.h"
#include "xfer/status.h"

namespace xfer::report {

class ClusterReporter final : public cluster::ClusterObserver {
 public:
  // `out` and `progress` are borrowed and must outlive the reporter; null:
  // nothing is printed there. `json_path` "" = no file.
  ClusterReporter(std::FILE* out, std::FILE* progress, std::string json_path);

  // Checks that the --json file can be written (CheckJsonWritable), before
  // any rank measures. Errors: kIoError naming the path.
  Status Prepare() const;

  void OnPlan(const cluster::ClusterRun& run) override;
  void OnGroupDone(const cluster::ClusterRun& run, size_t first, size_t count) override;
  void OnFinish(const cluster::ClusterRun& run) override;

  Status status() const { return status_; }

 private:
  void Rewrite(const cluster::ClusterRun& run);
  void Print(std::FILE* stream, const std::string& text);
  void Keep(const Status& status);

  std::FILE* out_;
  std::FILE* progress_;
  const std::string json_path_;
  Status status_;
};

}  // namespace xfer::report

#endif  // XFER_REPORT_CLUSTER_CLUSTER_REPORTER_H_
