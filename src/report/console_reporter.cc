#include "report/console_reporter.h"

#include "report/efficiency_column.h"
#include "report/json_report.h"
#include "report/perftest_table.h"
#include "report/rail_timeline_report.h"

namespace xfer::report {

ConsoleReporter::ConsoleReporter(const bench::BenchParams& params, std::FILE* out)
    : params_(params), out_(out), info_(MakeTestInfo(params, bench::RunInfo{})) {}

void ConsoleReporter::Print(const std::string& text) {
  std::fputs(text.c_str(), out_);
  std::fflush(out_);
}

void ConsoleReporter::OnNotice(const std::string& line) { Print(line + "\n"); }

void ConsoleReporter::OnWaitingForClient() { Print(ServerBanner()); }

void ConsoleReporter::OnStart(const bench::RunInfo& run) {
  info_ = MakeTestInfo(params_, run);
  ceilings_ = run.ceilings;
  Print(TestHeader(info_));
}

void ConsoleReporter::BeginTable() {
  if (table_open_) return;
  table_open_ = true;
  if (params_.kind == bench::Kind::kBandwidth) {
    Print(params_.efficiency ? EfficiencyColumnHeader(params_.units)
                             : BwColumnHeader(params_.units));
  } else if (params_.duration_s > 0) {
    Print(LatDurationColumnHeader());
  } else {
    Print(LatColumnHeader());
  }
}

void ConsoleReporter::OnPeerBandwidth(const bench::BwResult& result) {
  peer_bw_.push_back(result);
}

void ConsoleReporter::OnBandwidth(const bench::BwResult& result) {
  BeginTable();
  bw_.push_back(result);
  if (!params_.efficiency) {
    Print(BwRow(result, params_.units));
    return;
  }
  const auto ceiling = ceilings_.find(result.size);
  Print(EfficiencyRow(result, ceiling != ceilings_.end() ? &ceiling->second : nullptr,
                      params_.units));
}

void ConsoleReporter::OnLatency(const bench::LatResult& result) {
  BeginTable();
  lat_.push_back(result);
  // perftest's -U and -H: the lists before the row, then the column
  // header again.
  if (!result.unsorted_us.empty() || !result.sorted_us.empty()) {
    const char* units = params_.report_cycles ? "cycles" : "usec";
    if (!result.unsorted_us.empty()) Print(LatSampleLines(result.unsorted_us, units));
    if (!result.sorted_us.empty()) Print(LatSampleLines(result.sorted_us, units));
    Print(ResultLine() + LatColumnHeader());
  }
  Print(LatRow(result));
}

void ConsoleReporter::OnLatencyDuration(const bench::LatDurationResult& result) {
  BeginTable();
  lat_duration_.push_back(result);
  Print(LatDurationRow(result));
}

void ConsoleReporter::OnRails(const std::vector<RailInfo>& rails) { info_.rails = rails; }

void ConsoleReporter::OnRailTimeline(const bench::RailTimeline& timeline) { timeline_ = timeline; }

void ConsoleReporter::Finish() {
  if (table_open_) {
    Print(ResultLine());
    if (params_.efficiency) Print(CeilingSourceLines(ceilings_));
    if (info_.rails.size() > 1) Print(RailSplitLine(info_.rails));
    if (timeline_) Print(RailTimelineLines(*timeline_));
  }
  table_open_ = false;
}

Status ConsoleReporter::WriteJson(const std::string& path,
                                  const nlohmann::json& provenance) const {
  // A run that measured nothing still replaces the file: its outcome (in
  // `provenance`) says why and its results are empty, so an older file of
  // the same name never passes for this run.
  if (path.empty()) return Status::Ok();
  nlohmann::json document;
  if (params_.kind == bench::Kind::kBandwidth) {
    document = BwJsonReport(info_, bw_, peer_bw_, ceilings_);
  } else if (params_.duration_s > 0) {
    document = LatDurationJsonReport(info_, lat_duration_);
  } else {
    document = LatJsonReport(info_, lat_);
  }
  if (timeline_) document["rail_timeline"] = RailTimelineJson(*timeline_);
  if (provenance.is_object()) document.update(provenance);
  return WriteJsonFile(path, document);
}

}  // namespace xfer::report
