// A finished run read back from its JSON file, for `xfer report` and
// `xfer compare`: a perftest test's --json document (report/json_report.h),
// an `xfer matrix --json` document (report/matrix/matrix_json.h), or a
// cluster matrix's (report/cluster/cluster_json.h; `xfer report` shows its
// heat maps, `xfer compare` does not compare it).
//
// The file is untrusted. LoadRunDocument accepts only a document of one of
// those two shapes whose every field it reads has the right type: sizes are
// positive integers, figures finite and non-negative, text is text. The
// optional fields a newer xfer adds (top-level "command_line" and
// "fingerprint" in perftest documents; "ceiling" and "efficiency" in rows
// and cells) are read when present and checked like the rest. Anything
// else is refused with a message that names the file, the JSON path and the
// problem: "b.json: results[3].MsgSize: expected a positive integer".
//
// Nothing is invented: a figure the file does not carry stays empty
// (std::nullopt), and the readers say so rather than fill it in.
#ifndef XFER_REPORT_RUN_DOCUMENT_H_
#define XFER_REPORT_RUN_DOCUMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xfer/status.h"

namespace xfer::report {

enum class RunKind { kPerftestBandwidth, kPerftestLatency, kMatrix, kCluster };

// The most ranks a cluster file may hold for `xfer report` (its heat maps
// are ranks x ranks tables).
inline constexpr size_t kMaxReportRanks = 1024;

// The expected goodput of the path a figure was measured on, as the run
// recorded it. bytes_per_sec is empty when the run says it is unknown.
struct Ceiling {
  std::optional<double> bytes_per_sec;
  std::string source;
};

// What a row or cell says about its ceiling; both parts are optional.
struct EfficiencyInfo {
  std::optional<Ceiling> ceiling;
  std::optional<double> efficiency;  // fraction 0..1 of the ceiling
};

// One row of a bandwidth test. Bandwidths are in the document's stated
// unit (RunDocument::bw_unit); perftest rows carry no run-to-run spread.
struct BandwidthRow {
  uint64_t size = 0;
  // nullopt: not measured (null in the file; files before null wrote 0,
  // which no measured peak is).
  std::optional<double> bw_peak;
  double bw_average = 0;
  double msg_rate_mpps = 0;
  EfficiencyInfo efficiency;
};

// One row of a latency test, in microseconds. Iteration-mode rows carry all
// of t_min..p99.9; duration-mode rows (-D) carry t_avg only.
struct LatencyRow {
  uint64_t size = 0;
  std::optional<double> t_min_us;
  std::optional<double> t_typical_us;
  double t_avg_us = 0;
  std::optional<double> p99_us;
  std::optional<double> p999_us;
  EfficiencyInfo efficiency;
  // The samples' distribution, where the file records one (xfer's --json,
  // on the side that took them): the percentile ladder, (p, us) by
  // ascending p, and the log-linear buckets, ascending.
  std::vector<std::pair<double, double>> percentiles;
  struct Bucket {
    uint64_t from_ns = 0;
    uint64_t to_ns = 0;
    uint64_t count = 0;
  };
  std::vector<Bucket> buckets;
};

// One matrix cell. The figures are GB/s (10^9 bytes/s) and present only for
// a cell whose status is "ok".
struct MatrixCell {
  std::string transport;
  std::string direction;
  uint64_t block_size = 0;
  std::string block_label;
  std::string status;  // "ok", "unsupported", "failed" or "not run" (bench/matrix/cell_result.h)
  std::string reason;
  std::optional<double> median_gbps;
  std::optional<double> min_gbps;
  std::optional<double> max_gbps;
  size_t samples = 0;  // timed samples behind median/min/max
  EfficiencyInfo efficiency;
};

// One heat map of a cluster matrix: median GB/s from each source rank (row)
// into each target rank (column); empty where that pair did not run.
struct ClusterHeatMap {
  std::string direction;
  uint64_t block_size = 0;
  std::vector<std::vector<std::optional<double>>> gbps;
};

// --timeline's record in a bandwidth run (its JSON "rail_timeline"): what
// each rail carried per interval, and when rails went down.
struct RailTimelineDoc {
  uint64_t interval_ms = 0;
  std::vector<std::string> rails;  // "local->remote", rail 0 first
  struct Sample {
    uint64_t end_ms = 0;
    std::vector<uint64_t> bytes;  // one per rail, in (previous end, end_ms]
  };
  std::vector<Sample> samples;    // end_ms strictly increasing
  struct Loss {
    size_t rail = 0;
    double down_ms = 0;
    std::optional<double> up_ms;  // when it was up again; empty: it was not
  };
  std::vector<Loss> losses;
};

// A cell's status in the matrix table's words: "n/a" for "unsupported"
// (the path cannot run here), else the status as is.
std::string CellStatusText(const MatrixCell& cell);

struct RunDocument {
  std::string name;  // the path as given, used in every message and legend
  RunKind kind = RunKind::kPerftestBandwidth;
  // perftest: the test ("RDMA_Write_BW_Test") and its transport; matrix:
  // "matrix" and "".
  std::string test;
  std::string transport;
  // perftest bandwidth: the unit BW_peak/BW_average are in, as stated
  // ("Gb/s (10^9 bit/s)" or "MiB/s (2^20 bytes/s)").
  std::string bw_unit;
  // As text; a matrix's argv list is joined with blanks, words that need
  // it single-quoted. "" when the document has none.
  std::string command_line;
  // How the run ended, as the file says: "complete", "failed",
  // "interrupted" (or a matrix's "running"); "" when the file predates the
  // field. `error` is why it did not complete.
  std::string outcome;
  std::string error;
  // The host fingerprint flattened to ("hosts.initiator.kernel", "6.1.0"),
  // in document order; empty when the document has none.
  std::vector<std::pair<std::string, std::string>> fingerprint;

  std::vector<BandwidthRow> bandwidth;  // kPerftestBandwidth
  std::optional<RailTimelineDoc> rail_timeline;  // kPerftestBandwidth with --timeline
  std::vector<LatencyRow> latency;      // kPerftestLatency
  // kMatrix: the cells, and the axes in the order the run listed them.
  std::vector<MatrixCell> cells;
  std::vector<std::string> transports;
  std::vector<std::string> directions;
  std::vector<uint64_t> block_sizes;
  // kCluster: the scheme, each rank's host (by rank) and the heat maps.
  std::string scheme;
  std::vector<std::string> rank_hosts;
  std::vector<ClusterHeatMap> heat_maps;
};

// For a run that did not complete: "Incomplete run (interrupted): <error>;
// only what finished is shown." "" for a complete run or one whose file
// does not say.
std::string IncompleteNote(const RunDocument& run);

// "bandwidth test", "latency test", "matrix", "cluster matrix".
std::string_view RunKindName(RunKind kind);

// The unit's short name for axis labels and tables ("Gb/s", "MiB/s").
std::string_view ShortUnit(std::string_view stated_unit);

// Bytes per second in the stated bandwidth unit; the unit must be one
// ParseRunDocument accepted.
double BytesPerSecToUnit(double bytes_per_sec, std::string_view stated_unit);

// Reads `text` as the content of the file `name`. Pure; thread-safe.
// Errors: kInvalidArgument "<name>: <where>: <problem>".
Result<RunDocument> ParseRunDocument(std::string_view name, std::string_view text);

// Reads the file at `path` and parses it. Errors: kIoError "<path>: cannot
// read: <reason>", else as ParseRunDocument.
Result<RunDocument> LoadRunDocument(const std::string& path);

}  // namespace xfer::report

#endif  // XFER_REPORT_RUN_DOCUMENT_H_
