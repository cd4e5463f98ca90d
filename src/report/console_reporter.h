// The BenchObserver behind `xfer`: prints perftest's tables to a stream as
// rows arrive, and keeps every row for the --json document.
#ifndef XFER_REPORT_CONSOLE_REPORTER_H_
#define XFER_REPORT_CONSOLE_REPORTER_H_

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/model/bench_params.h"
#include "bench/model/observer.h"
#include "nlohmann/json.hpp"
#include "report/run_header.h"
#include "xfer/status.h"

namespace xfer::report {

// Not thread-safe; the bench calls it from one thread.
class ConsoleReporter final : public bench::BenchObserver {
 public:
  // `out` is borrowed (stdout in the CLI, a tmpfile in tests).
  ConsoleReporter(const bench::BenchParams& params, std::FILE* out);

  void OnNotice(const std::string& line) override;
  void OnWaitingForClient() override;
  void OnStart(const bench::RunInfo& info) override;
  void OnBandwidth(const bench::BwResult& result) override;
  void OnPeerBandwidth(const bench::BwResult& result) override;
  void OnLatency(const bench::LatResult& result) override;
  void OnLatencyDuration(const bench::LatDurationResult& result) override;
  void OnRails(const std::vector<RailInfo>& rails) override;
  void OnRailTimeline(const bench::RailTimeline& timeline) override;

  // Closes the table (the final dashed line) if rows were printed.
  void Finish();

  // Whether any row was measured.
  bool measured() const { return !bw_.empty() || !lat_.empty() || !lat_duration_.empty(); }

  // Writes every row seen to `path`, with `provenance`'s keys (the
  // command line, host fingerprint and outcome, json_report.h) at the top
  // level; a no-op for an empty path. A run that measured nothing writes
  // its test_info (from the flags) and an empty "results". Errors:
  // the file could not be written, naming it.
  Status WriteJson(const std::string& path, const nlohmann::json& provenance = {}) const;

 private:
  void Print(const std::string& text);
  void BeginTable();

  const bench::BenchParams params_;
  std::FILE* out_;
  TestInfo info_;  // set by OnStart
  std::map<uint64_t, bench::Ceiling> ceilings_;  // set by OnStart
  bool table_open_ = false;
  std::vector<bench::BwResult> bw_;
  std::vector<bench::BwResult> peer_bw_;  // rows the peer sent, for --json
  std::vector<bench::LatResult> lat_;
  std::vector<bench::LatDurationResult> lat_duration_;
  std::optional<bench::RailTimeline> timeline_;  // --timeline, after the last size
};

}  // namespace xfer::report

#endif  // XFER_REPORT_CONSOLE_REPORTER_H_
