#include "report/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "report/html/svg_plot.h"

namespace xfer::report {
namespace {

// A point of one run: its key, value (or why none) and sample range.
struct Measured {
  std::string key;
  std::optional<double> value;
  std::string missing;
  std::optional<double> min;
  std::optional<double> max;
  size_t samples = 0;
};

std::string Describe(const RunDocument& run) {
  if (run.kind == RunKind::kMatrix) return "a matrix";
  return fmt::format("a {} ({})", RunKindName(run.kind), run.test);
}

Status CheckComparable(const RunDocument& a, const RunDocument& b) {
  for (const RunDocument* run : {&a, &b}) {
    if (run->kind == RunKind::kCluster) {
      return InvalidArgument(fmt::format(
          "{} is a cluster matrix: xfer compare does not compare those yet; xfer report shows "
          "its heat maps",
          run->name));
    }
  }
  if (a.kind != b.kind || a.test != b.test) {
    return InvalidArgument(fmt::format("{} is {}, {} is {}: compare runs of the same kind and test",
                                       a.name, Describe(a), b.name, Describe(b)));
  }
  return Status::Ok();
}

// The points of `run`; bandwidths in `unit` (a run made with --report_gbits
// compares with one without: both units are bytes per second scaled).
std::vector<Measured> Points(const RunDocument& run, std::string_view unit) {
  std::vector<Measured> out;
  for (const BandwidthRow& row : run.bandwidth) {
    const double bytes_per_sec = row.bw_average / BytesPerSecToUnit(1.0, run.bw_unit);
    out.push_back({std::to_string(row.size), BytesPerSecToUnit(bytes_per_sec, unit), "", {}, {}, 0});
  }
  // The percentiles of a latency row's distribution that compare: the
  // median and the tail.
  constexpr double kComparedPercentiles[] = {50, 99, 99.9, 99.99};
  for (const LatencyRow& row : run.latency) {
    out.push_back({std::to_string(row.size), row.t_typical_us.value_or(row.t_avg_us), "", {}, {}, 0});
    for (const auto& [p, us] : row.percentiles) {
      if (std::find(std::begin(kComparedPercentiles), std::end(kComparedPercentiles), p) ==
          std::end(kComparedPercentiles)) {
        continue;
      }
      out.push_back({fmt::format("{} p{:g}", row.size, p), us, "", {}, {}, 0});
    }
  }
  for (const MatrixCell& cell : run.cells) {
    const std::string key = fmt::format("{} {} {}", cell.transport, cell.direction,
                                        BinarySizeLabel(static_cast<double>(cell.block_size)));
    out.push_back({key, cell.median_gbps, cell.median_gbps ? "" : CellStatusText(cell), cell.min_gbps,
                   cell.max_gbps, cell.samples});
  }
  return out;
}

std::string What(const RunDocument& run) {
  switch (run.kind) {
    case RunKind::kPerftestBandwidth: return fmt::format("{} BW_average [{}]", run.test, run.bw_unit);
    case RunKind::kPerftestLatency: {
      const bool typical = !run.latency.empty() && run.latency.front().t_typical_us.has_value();
      const bool percentiles = !run.latency.empty() && !run.latency.front().percentiles.empty();
      return fmt::format("{} {}{} [usec]", run.test, typical ? "t_typical" : "t_avg",
                         percentiles ? " (\"8 p99\": the 99th percentile of size 8)" : "");
    }
    case RunKind::kMatrix: return "matrix median [GB/s (10^9 bytes/s)]";
    case RunKind::kCluster: return "cluster matrix";  // refused by CheckComparable
  }
  return "";
}

void JudgeSpread(const RunDocument& a, const Measured& pa, const Measured& pb, ComparePoint& point) {
  if (a.kind != RunKind::kMatrix) return;  // Comparison::spread_unknown_because
  if (!pa.value || !pb.value) {
    point.spread_note = "unknown: not measured in both";
    return;
  }
  if (pa.samples < 2 || pb.samples < 2 || !pa.min || !pa.max || !pb.min || !pb.max) {
    point.spread_note = fmt::format("unknown: {} and {} timed samples", pa.samples, pb.samples);
    return;
  }
  const bool overlap = *pa.min <= *pb.max && *pb.min <= *pa.max;
  point.spread = overlap ? Spread::kWithin : Spread::kOutside;
  point.spread_note = fmt::format("A {:.2f}..{:.2f}, B {:.2f}..{:.2f}", *pa.min, *pa.max, *pb.min,
                                  *pb.max);
}

CompareSide Side(const Measured& measured) { return {measured.value, measured.missing}; }

}  // namespace

std::string_view SpreadName(Spread spread) {
  switch (spread) {
    case Spread::kWithin: return "within spread";
    case Spread::kOutside: return "outside spread";
    case Spread::kUnknown: return "spread unknown";
  }
  return "";
}

Result<Comparison> CompareRuns(const RunDocument& a, const RunDocument& b) {
  XFER_RETURN_IF_ERROR(CheckComparable(a, b));
  Comparison out;
  out.a_name = a.name;
  out.b_name = b.name;
  out.what = What(a);
  out.key_header = a.kind == RunKind::kMatrix ? "transport direction block" : "MsgSize";
  out.lower_is_better = a.kind == RunKind::kPerftestLatency;
  if (a.kind == RunKind::kPerftestBandwidth) {
    out.spread_unknown_because =
        "perftest bandwidth rows carry an average and a peak, not a spread across runs; repeat "
        "each run and compare the repeats, or use xfer matrix --loops";
  } else if (a.kind == RunKind::kPerftestLatency) {
    out.spread_unknown_because =
        "perftest latency rows carry one run's t_min, t_max, stdev and percentiles, not a "
        "spread across runs; repeat each run and compare the repeats";
  }
  for (const RunDocument* run : {&a, &b}) {
    if (std::string note = IncompleteNote(*run); !note.empty()) {
      out.warnings.push_back(fmt::format("{}: {}", run->name, note));
    }
  }
  if (a.bw_unit != b.bw_unit) {
    out.warnings.push_back(fmt::format("{} reports {}: its figures are converted to {}",
                                       b.name, ShortUnit(b.bw_unit), ShortUnit(a.bw_unit)));
  }
  const std::vector<Measured> in_a = Points(a, a.bw_unit);
  const std::vector<Measured> in_b = Points(b, a.bw_unit);
  auto find = [](const std::vector<Measured>& points, const std::string& key) {
    return std::find_if(points.begin(), points.end(),
                        [&key](const Measured& m) { return m.key == key; });
  };
  for (const Measured& pa : in_a) {
    ComparePoint point;
    point.key = pa.key;
    point.a = Side(pa);
    const auto pb = find(in_b, pa.key);
    if (pb == in_b.end()) {
      point.b.missing = "not in " + b.name;
      point.spread_note = "only in " + a.name;
    } else {
      point.b = Side(*pb);
      if (pa.value && pb->value && *pa.value > 0) point.ratio = *pb->value / *pa.value;
      JudgeSpread(a, pa, *pb, point);
    }
    out.points.push_back(std::move(point));
  }
  for (const Measured& pb : in_b) {
    if (find(in_a, pb.key) != in_a.end()) continue;
    ComparePoint point;
    point.key = pb.key;
    point.a.missing = "not in " + a.name;
    point.b = Side(pb);
    point.spread_note = "only in " + b.name;
    out.points.push_back(std::move(point));
  }
  return out;
}

std::string RenderComparison(const Comparison& comparison) {
  std::vector<std::vector<std::string>> rows = {
      {comparison.key_header, "A", "B", "B/A", "spread"}};
  auto side = [](const CompareSide& s) {
    return s.value ? fmt::format("{:.2f}", *s.value) : s.missing;
  };
  for (const ComparePoint& point : comparison.points) {
    const bool both = point.a.value && point.b.value;
    std::string spread = both ? std::string(SpreadName(point.spread)) : "-";
    if (!point.spread_note.empty()) spread += fmt::format(" ({})", point.spread_note);
    rows.push_back({point.key, side(point.a), side(point.b),
                    point.ratio ? fmt::format("{:.3f}", *point.ratio) : "-", spread});
  }
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string text = fmt::format("A: {}\nB: {}\nCompared: {}; {} is better\n",
                                 comparison.a_name, comparison.b_name, comparison.what,
                                 comparison.lower_is_better ? "lower (B/A < 1: B is faster)"
                                                            : "higher (B/A > 1: B is faster)");
  for (const std::string& warning : comparison.warnings) text += "Warning: " + warning + "\n";
  text += comparison.spread_unknown_because.empty()
              ? std::string("Spread: within when the min..max of A's and B's samples overlap; "
                            "unknown where a file carries no spread.\n\n")
              : fmt::format("Spread: unknown for every point: {}.\n\n",
                            comparison.spread_unknown_because);
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      const bool last = i + 1 == row.size();
      line += last ? row[i] : fmt::format("{:<{}}  ", row[i], width[i]);
    }
    text += line + "\n";
  }
  size_t within = 0, outside = 0, unknown = 0, single = 0;
  for (const ComparePoint& point : comparison.points) {
    if (!point.a.value || !point.b.value) {
      ++single;
    } else if (point.spread == Spread::kWithin) {
      ++within;
    } else if (point.spread == Spread::kOutside) {
      ++outside;
    } else {
      ++unknown;
    }
  }
  text += fmt::format("\n{} within spread, {} outside spread, {} spread unknown, {} not in both\n",
                      within, outside, unknown, single);
  return text;
}

}  // namespace xfer::report
