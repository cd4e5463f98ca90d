#include "report/run_document.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "common/input_file.h"
#include "report/json_fields.h"

namespace xfer::report {
namespace {

using nlohmann::json;

constexpr std::string_view kGbits = "Gb/s (10^9 bit/s)";
constexpr std::string_view kMebibytes = "MiB/s (2^20 bytes/s)";

// The member as a number >= 0, or nullopt when it is absent or null.
Result<std::optional<double>> OptionalNumber(const Field& object, std::string_view key) {
  XFER_REPORT_ASSIGN_OR_RETURN(std::optional<Field> field, object.OptionalMember(key));
  if (!field || field->is_null()) return std::optional<double>();
  XFER_REPORT_ASSIGN_OR_RETURN(double number, field->NonNegative());
  return std::optional<double>(number);
}

Result<std::string> OptionalString(const Field& object, std::string_view key) {
  XFER_REPORT_ASSIGN_OR_RETURN(std::optional<Field> field, object.OptionalMember(key));
  if (!field || field->is_null()) return std::string();
  return field->String();
}

Result<double> Number(const Field& object, std::string_view key) {
  XFER_REPORT_ASSIGN_OR_RETURN(Field field, object.Member(key));
  return field.NonNegative();
}

// A command line is text (perftest documents) or its words (the matrix's
// argv); words with blanks or quotes are shown single-quoted.
Result<std::string> OptionalCommandLine(const Field& object) {
  XFER_REPORT_ASSIGN_OR_RETURN(std::optional<Field> field, object.OptionalMember("command_line"));
  if (!field || field->is_null()) return std::string();
  if (!field->value().is_array()) return field->String();
  XFER_REPORT_ASSIGN_OR_RETURN(size_t count, field->ArraySize());
  std::string line;
  for (size_t i = 0; i < count; ++i) {
    XFER_REPORT_ASSIGN_OR_RETURN(std::string word, field->Element(i).String());
    if (!line.empty()) line += ' ';
    if (word.empty() || word.find_first_of(" \t\n'\"\\$") != std::string::npos) {
      std::string quoted = "'";
      for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      word = quoted + "'";
    }
    line += word;
  }
  return line;
}

// "ceiling": {"bytes_per_sec": N|null, "source": "..."} and "efficiency".
Result<EfficiencyInfo> ReadEfficiency(const Field& object) {
  EfficiencyInfo info;
  XFER_REPORT_ASSIGN_OR_RETURN(std::optional<Field> ceiling, object.OptionalMember("ceiling"));
  if (ceiling && !ceiling->is_null()) {
    Ceiling read;
    XFER_REPORT_ASSIGN_OR_RETURN(read.bytes_per_sec, OptionalNumber(*ceiling, "bytes_per_sec"));
    XFER_REPORT_ASSIGN_OR_RETURN(read.source, OptionalString(*ceiling, "source"));
    info.ceiling = std::move(read);
  }
  XFER_REPORT_ASSIGN_OR_RETURN(info.efficiency, OptionalNumber(object, "efficiency"));
  return info;
}

// Scalars print as they are; objects and arrays recurse with a longer key.
void Flatten(const json& value, const std::string& key,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (value.is_object()) {
    for (const auto& [member, inner] : value.items()) {
      Flatten(inner, key.empty() ? member : key + "." + member, out);
    }
  } else if (value.is_array()) {
    if (value.empty()) out.emplace_back(key, "none");
    for (size_t i = 0; i < value.size(); ++i) Flatten(value[i], fmt::format("{}[{}]", key, i), out);
  } else if (value.is_string()) {
    out.emplace_back(key, value.get<std::string>());
  } else if (value.is_null()) {
    out.emplace_back(key, "unknown");
  } else {
    out.emplace_back(key, value.dump());
  }
}

// Keys are JSON paths from the document's root ("hosts.initiator.kernel"),
// so that a reader can find each value in the file.
Result<std::vector<std::pair<std::string, std::string>>> ReadFingerprint(
    const Field& field, const std::string& member) {
  XFER_RETURN_IF_ERROR(field.ExpectObject());
  std::vector<std::pair<std::string, std::string>> out;
  Flatten(field.value(), member, out);
  return out;
}

// A size seen twice would make a point ambiguous for compare and plots.
Status CheckUnique(std::set<uint64_t>& seen, uint64_t size, const Field& where) {
  if (!seen.insert(size).second) return where.Error(fmt::format("size {} appears twice", size));
  return Status::Ok();
}

Result<BandwidthRow> ReadBandwidthRow(const Field& row) {
  BandwidthRow out;
  XFER_REPORT_ASSIGN_OR_RETURN(Field size, row.Member("MsgSize"));
  XFER_REPORT_ASSIGN_OR_RETURN(out.size, size.PositiveInteger());
  XFER_REPORT_ASSIGN_OR_RETURN(Field peak, row.Member("BW_peak"));
  if (!peak.is_null()) {
    XFER_REPORT_ASSIGN_OR_RETURN(double measured, peak.NonNegative());
    if (measured > 0) out.bw_peak = measured;
  }
  XFER_REPORT_ASSIGN_OR_RETURN(out.bw_average, Number(row, "BW_average"));
  XFER_REPORT_ASSIGN_OR_RETURN(out.msg_rate_mpps, Number(row, "MsgRate"));
  XFER_REPORT_ASSIGN_OR_RETURN(out.efficiency, ReadEfficiency(row));
  return out;
}

// The most buckets a distribution may have: 16 per power of two of
// nanoseconds up to 2^64 is 960.
constexpr size_t kMaxLatencyBuckets = 1024;

// A row's optional "distribution" (json_report.h): the ladder, by
// ascending percentile in (0, 100], and buckets [from_ns, to_ns, count],
// ascending and apart, whose counts add up to "samples".
Status ReadLatencyDistribution(const Field& row, LatencyRow& out) {
  XFER_REPORT_ASSIGN_OR_RETURN(std::optional<Field> distribution,
                               row.OptionalMember("distribution"));
  if (!distribution) return Status::Ok();
  XFER_REPORT_ASSIGN_OR_RETURN(Field samples_field, distribution->Member("samples"));
  XFER_REPORT_ASSIGN_OR_RETURN(uint64_t samples, samples_field.Count());
  XFER_REPORT_ASSIGN_OR_RETURN(Field ladder, distribution->Member("percentiles"));
  XFER_RETURN_IF_ERROR(ladder.ExpectObject());
  for (const auto& [key, value] : ladder.value().items()) {
    const Field figure(value, ladder.path() + "." + key);
    char* end = nullptr;
    const double p = std::strtod(key.c_str(), &end);
    if (key.empty() || *end != '\0' || !(p > 0 && p <= 100)) {
      return figure.Error("expected a percentile in (0, 100] as the key");
    }
    XFER_REPORT_ASSIGN_OR_RETURN(double us, figure.NonNegative());
    out.percentiles.emplace_back(p, us);
  }
  std::sort(out.percentiles.begin(), out.percentiles.end());
  XFER_REPORT_ASSIGN_OR_RETURN(Field buckets, distribution->Member("buckets_ns"));
  XFER_REPORT_ASSIGN_OR_RETURN(size_t count, buckets.ArraySize());
  if (count > kMaxLatencyBuckets) return buckets.Error("too many buckets");
  uint64_t counted = 0;
  for (size_t i = 0; i < count; ++i) {
    const Field bucket = buckets.Element(i);
    XFER_REPORT_ASSIGN_OR_RETURN(size_t fields, bucket.ArraySize());
    if (fields != 3) return bucket.Error("expected [from_ns, to_ns, count]");
    LatencyRow::Bucket read;
    XFER_REPORT_ASSIGN_OR_RETURN(read.from_ns, bucket.Element(0).Count());
    XFER_REPORT_ASSIGN_OR_RETURN(read.to_ns, bucket.Element(1).Count());
    XFER_REPORT_ASSIGN_OR_RETURN(read.count, bucket.Element(2).PositiveInteger());
    if (read.to_ns <= read.from_ns) return bucket.Error("to_ns is not above from_ns");
    if (!out.buckets.empty() && read.from_ns < out.buckets.back().to_ns) {
      return bucket.Error("overlaps or precedes the bucket before");
    }
    if (__builtin_add_overflow(counted, read.count, &counted)) return bucket.Error("count overflows");
    out.buckets.push_back(read);
  }
  if (counted != samples) {
    return buckets.Error(fmt::format("the buckets count {} samples, not the {} of \"samples\"",
                                     counted, samples));
  }
  return Status::Ok();
}

Result<LatencyRow> ReadLatencyRow(const Field& row, bool duration_mode) {
  LatencyRow out;
  XFER_REPORT_ASSIGN_OR_RETURN(Field size, row.Member("MsgSize"));
  XFER_REPORT_ASSIGN_OR_RETURN(out.size, size.PositiveInteger());
  XFER_REPORT_ASSIGN_OR_RETURN(out.t_avg_us, Number(row, "t_avg"));
  if (!duration_mode) {
    XFER_REPORT_ASSIGN_OR_RETURN(out.t_min_us, Number(row, "t_min"));
    XFER_REPORT_ASSIGN_OR_RETURN(out.t_typical_us, Number(row, "t_typical"));
    XFER_REPORT_ASSIGN_OR_RETURN(out.p99_us, Number(row, "percentile_99"));
    XFER_REPORT_ASSIGN_OR_RETURN(out.p999_us, Number(row, "percentile_99.9"));
    XFER_RETURN_IF_ERROR(ReadLatencyDistribution(row, out));
  }
  XFER_REPORT_ASSIGN_OR_RETURN(out.efficiency, ReadEfficiency(row));
  return out;
}

Status ReadPerftestRows(const Field& root, bool duration_mode, RunDocument& run) {
  XFER_REPORT_ASSIGN_OR_RETURN(Field rows, root.Member("results"));
  XFER_REPORT_ASSIGN_OR_RETURN(size_t count, rows.ArraySize());
  std::set<uint64_t> seen;
  for (size_t i = 0; i < count; ++i) {
    const Field row = rows.Element(i);
    XFER_RETURN_IF_ERROR(row.ExpectObject());
    if (run.kind == RunKind::kPerftestBandwidth) {
      XFER_REPORT_ASSIGN_OR_RETURN(BandwidthRow read, ReadBandwidthRow(row));
      XFER_RETURN_IF_ERROR(CheckUnique(seen, read.size, row));
      run.bandwidth.push_back(std::move(read));
    } else {
      XFER_REPORT_ASSIGN_OR_RETURN(LatencyRow read, ReadLatencyRow(row, duration_mode));
      XFER_RETURN_IF_ERROR(CheckUnique(seen, read.size, row));
      run.latency.push_back(std::move(read));
    }
  }
  if (count == 0) return rows.Error("no rows: the run measured nothing");
  return Status::Ok();
}

// perftest's name says the kind: "RDMA_Write_BW_Test", "Send_Latency_Test".
Result<RunKind> PerftestKind(const Field& test, const std::string& name) {
  if (name.find("_BW_") != std::string::npos) return RunKind::kPerftestBandwidth;
  if (name.find("_Latency_") != std::string::npos) return RunKind::kPerftestLatency;
  return test.Error(fmt::format("'{}' is no bandwidth or latency test", name));
}

// The optional "outcome" and "error" of `object` (the document's top level,
// or a matrix's "run").
Status ReadOutcome(const Field& object, RunDocument& run) {
  XFER_REPORT_ASSIGN_OR_RETURN(run.outcome, OptionalString(object, "outcome"));
  if (!run.outcome.empty() && run.outcome != "complete" && run.outcome != "failed" &&
      run.outcome != "interrupted" && run.outcome != "running") {
    XFER_REPORT_ASSIGN_OR_RETURN(Field outcome, object.Member("outcome"));
    return outcome.Error(fmt::format(
        "'{}' is not complete, failed, interrupted or running", run.outcome));
  }
  XFER_REPORT_ASSIGN_OR_RETURN(run.error, OptionalString(object, "error"));
  return Status::Ok();
}

Result<std::vector<std::string>> StringList(const Field& object, std::string_view key) {
  XFER_REPORT_ASSIGN_OR_RETURN(Field list, object.Member(key));
  XFER_REPORT_ASSIGN_OR_RETURN(size_t count, list.ArraySize());
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    XFER_REPORT_ASSIGN_OR_RETURN(std::string item, list.Element(i).String());
    out.push_back(std::move(item));
  }
  return out;
}

// The most rails (RailStriper::kMaxRails) and samples a timeline may hold:
// a day of 10 ms intervals is 8.6 million; more is no run's.
constexpr size_t kMaxTimelineRails = 16;
constexpr size_t kMaxTimelineSamples = 10'000'000;

Result<RailTimelineDoc> ReadRailTimeline(const Field& timeline) {
  RailTimelineDoc out;
  XFER_REPORT_ASSIGN_OR_RETURN(Field interval, timeline.Member("interval_ms"));
  XFER_REPORT_ASSIGN_OR_RETURN(out.interval_ms, interval.PositiveInteger());
  XFER_REPORT_ASSIGN_OR_RETURN(out.rails, StringList(timeline, "rails"));
  if (out.rails.empty() || out.rails.size() > kMaxTimelineRails) {
    XFER_REPORT_ASSIGN_OR_RETURN(Field rails, timeline.Member("rails"));
    return rails.Error(fmt::format("expected 1 to {} rails", kMaxTimelineRails));
  }
  XFER_REPORT_ASSIGN_OR_RETURN(Field samples, timeline.Member("samples"));
  XFER_REPORT_ASSIGN_OR_RETURN(size_t count, samples.ArraySize());
  if (count > kMaxTimelineSamples) {
    return samples.Error(fmt::format("more than {} samples", kMaxTimelineSamples));
  }
  for (size_t i = 0; i < count; ++i) {
    const Field sample = samples.Element(i);
    XFER_REPORT_ASSIGN_OR_RETURN(Field end, sample.Member("end_ms"));
    RailTimelineDoc::Sample read;
    XFER_REPORT_ASSIGN_OR_RETURN(read.end_ms, end.PositiveInteger());
    if (!out.samples.empty() && read.end_ms <= out.samples.back().end_ms) {
      return end.Error("not after the sample before");
    }
    XFER_REPORT_ASSIGN_OR_RETURN(Field bytes, sample.Member("bytes"));
    XFER_REPORT_ASSIGN_OR_RETURN(size_t rails, bytes.ArraySize());
    if (rails != out.rails.size()) {
      return bytes.Error(fmt::format("expected {} figures, one per rail", out.rails.size()));
    }
    for (size_t r = 0; r < rails; ++r) {
      XFER_REPORT_ASSIGN_OR_RETURN(uint64_t figure, bytes.Element(r).Count());
      read.bytes.push_back(figure);
    }
    out.samples.push_back(std::move(read));
  }
  XFER_REPORT_ASSIGN_OR_RETURN(std::optional<Field> recoveries,
                               timeline.OptionalMember("recoveries"));
  if (recoveries) {
    XFER_REPORT_ASSIGN_OR_RETURN(size_t losses, recoveries->ArraySize());
    if (losses > kMaxTimelineSamples) return recoveries->Error("too many");
    for (size_t i = 0; i < losses; ++i) {
      const Field loss = recoveries->Element(i);
      XFER_REPORT_ASSIGN_OR_RETURN(Field rail, loss.Member("rail"));
      RailTimelineDoc::Loss read;
      XFER_REPORT_ASSIGN_OR_RETURN(read.rail, rail.Count());
      if (read.rail >= out.rails.size()) return rail.Error("no such rail");
      XFER_REPORT_ASSIGN_OR_RETURN(Field down, loss.Member("down_ms"));
      // Before the timeline's start (negative) for a rail lost earlier.
      if (!down.value().is_number() || !std::isfinite(down.value().get<double>())) {
        return down.Error("expected a number of milliseconds");
      }
      read.down_ms = down.value().get<double>();
      XFER_REPORT_ASSIGN_OR_RETURN(std::optional<Field> up, loss.OptionalMember("up_ms"));
      if (up && !up->value().is_null()) {
        if (!up->value().is_number() || !std::isfinite(up->value().get<double>()) ||
            up->value().get<double>() < read.down_ms) {
          return up->Error("expected null or a number of milliseconds, not before down_ms");
        }
        read.up_ms = up->value().get<double>();
      }
      out.losses.push_back(read);
    }
  }
  return out;
}

Status ReadPerftest(const Field& root, RunDocument& run) {
  XFER_REPORT_ASSIGN_OR_RETURN(Field info, root.Member("test_info"));
  XFER_REPORT_ASSIGN_OR_RETURN(Field test, info.Member("test"));
  XFER_REPORT_ASSIGN_OR_RETURN(run.test, test.String());
  XFER_REPORT_ASSIGN_OR_RETURN(run.kind, PerftestKind(test, run.test));
  XFER_REPORT_ASSIGN_OR_RETURN(run.transport, OptionalString(info, "transport"));
  XFER_REPORT_ASSIGN_OR_RETURN(std::string mode, OptionalString(info, "mode"));
  XFER_REPORT_ASSIGN_OR_RETURN(Field units, info.Member("units"));
  if (run.kind == RunKind::kPerftestBandwidth) {
    XFER_REPORT_ASSIGN_OR_RETURN(Field unit, units.Member("BW_average"));
    XFER_REPORT_ASSIGN_OR_RETURN(run.bw_unit, unit.String());
    if (run.bw_unit != kGbits && run.bw_unit != kMebibytes) {
      return unit.Error(fmt::format("unknown unit '{}' (expected '{}' or '{}')", run.bw_unit,
                                    kGbits, kMebibytes));
    }
  }
  XFER_REPORT_ASSIGN_OR_RETURN(run.command_line, OptionalCommandLine(root));
  XFER_RETURN_IF_ERROR(ReadOutcome(root, run));
  XFER_REPORT_ASSIGN_OR_RETURN(std::optional<Field> fingerprint, root.OptionalMember("fingerprint"));
  if (fingerprint && !fingerprint->is_null()) {
    XFER_REPORT_ASSIGN_OR_RETURN(run.fingerprint, ReadFingerprint(*fingerprint, "fingerprint"));
  }
  XFER_REPORT_ASSIGN_OR_RETURN(std::optional<Field> timeline, root.OptionalMember("rail_timeline"));
  if (timeline && !timeline->is_null() && run.kind == RunKind::kPerftestBandwidth) {
    XFER_REPORT_ASSIGN_OR_RETURN(run.rail_timeline, ReadRailTimeline(*timeline));
  }
  return ReadPerftestRows(root, mode == "duration", run);
}

Result<MatrixCell> ReadCell(const Field& cell) {
  MatrixCell out;
  XFER_RETURN_IF_ERROR(cell.ExpectObject());
  XFER_REPORT_ASSIGN_OR_RETURN(Field transport, cell.Member("transport"));
  XFER_REPORT_ASSIGN_OR_RETURN(out.transport, transport.String());
  XFER_REPORT_ASSIGN_OR_RETURN(Field direction, cell.Member("direction"));
  XFER_REPORT_ASSIGN_OR_RETURN(out.direction, direction.String());
  XFER_REPORT_ASSIGN_OR_RETURN(Field block, cell.Member("block_size"));
  XFER_REPORT_ASSIGN_OR_RETURN(out.block_size, block.PositiveInteger());
  XFER_REPORT_ASSIGN_OR_RETURN(out.block_label, OptionalString(cell, "block_label"));
  XFER_REPORT_ASSIGN_OR_RETURN(Field status, cell.Member("status"));
  XFER_REPORT_ASSIGN_OR_RETURN(out.status, status.String());
  // Every status xfer matrix writes (bench/matrix/cell_result.h), "not run"
  // included: an interrupted or failed run's file keeps its plan.
  if (out.status != "ok" && out.status != "unsupported" && out.status != "failed" &&
      out.status != "not run") {
    return status.Error(
        fmt::format("'{}' is not ok, unsupported, failed or not run", out.status));
  }
  XFER_REPORT_ASSIGN_OR_RETURN(out.reason, OptionalString(cell, "reason"));
  XFER_REPORT_ASSIGN_OR_RETURN(out.median_gbps, OptionalNumber(cell, "median_gbps"));
  XFER_REPORT_ASSIGN_OR_RETURN(out.min_gbps, OptionalNumber(cell, "min_gbps"));
  XFER_REPORT_ASSIGN_OR_RETURN(out.max_gbps, OptionalNumber(cell, "max_gbps"));
  if (out.status == "ok" && (!out.median_gbps || !out.min_gbps || !out.max_gbps)) {
    return cell.Error("status ok without median_gbps, min_gbps and max_gbps");
  }
  if (out.median_gbps && out.min_gbps && out.max_gbps &&
      !(*out.min_gbps <= *out.median_gbps && *out.median_gbps <= *out.max_gbps)) {
    return cell.Error("expected min_gbps <= median_gbps <= max_gbps");
  }
  XFER_REPORT_ASSIGN_OR_RETURN(std::optional<Field> samples, cell.OptionalMember("sample_gbps"));
  if (samples) {
    XFER_REPORT_ASSIGN_OR_RETURN(size_t count, samples->ArraySize());
    for (size_t i = 0; i < count; ++i) {
      const Field sample = samples->Element(i);
      if (sample.is_null()) continue;  // a sample that did not time
      XFER_RETURN_IF_ERROR(sample.NonNegative().status());
      ++out.samples;
    }
  }
  XFER_REPORT_ASSIGN_OR_RETURN(out.efficiency, ReadEfficiency(cell));
  return out;
}

Status ReadMatrixAxes(const Field& root, RunDocument& run) {
  XFER_REPORT_ASSIGN_OR_RETURN(Field config, root.Member("config"));
  XFER_REPORT_ASSIGN_OR_RETURN(run.directions, StringList(config, "directions"));
  XFER_REPORT_ASSIGN_OR_RETURN(run.transports, StringList(root, "transports"));
  XFER_REPORT_ASSIGN_OR_RETURN(Field blocks, config.Member("block_sizes"));
  XFER_REPORT_ASSIGN_OR_RETURN(size_t count, blocks.ArraySize());
  for (size_t i = 0; i < count; ++i) {
    XFER_REPORT_ASSIGN_OR_RETURN(uint64_t block, blocks.Element(i).PositiveInteger());
    run.block_sizes.push_back(block);
  }
  return Status::Ok();
}

Status ReadMatrix(const Field& root, RunDocument& run) {
  run.kind = RunKind::kMatrix;
  run.test = "matrix";
  XFER_REPORT_ASSIGN_OR_RETURN(Field meta, root.Member("run"));
  XFER_REPORT_ASSIGN_OR_RETURN(run.command_line, OptionalCommandLine(meta));
  XFER_RETURN_IF_ERROR(ReadOutcome(meta, run));
  XFER_REPORT_ASSIGN_OR_RETURN(std::optional<Field> hosts, root.OptionalMember("hosts"));
  if (hosts && !hosts->is_null()) {
    XFER_REPORT_ASSIGN_OR_RETURN(run.fingerprint, ReadFingerprint(*hosts, "hosts"));
  }
  XFER_RETURN_IF_ERROR(ReadMatrixAxes(root, run));
  XFER_REPORT_ASSIGN_OR_RETURN(Field cells, root.Member("cells"));
  XFER_REPORT_ASSIGN_OR_RETURN(size_t count, cells.ArraySize());
  std::set<std::tuple<std::string, std::string, uint64_t>> seen;
  for (size_t i = 0; i < count; ++i) {
    const Field where = cells.Element(i);
    XFER_REPORT_ASSIGN_OR_RETURN(MatrixCell cell, ReadCell(where));
    if (!seen.emplace(cell.transport, cell.direction, cell.block_size).second) {
      return where.Error(fmt::format("{} {} block {} appears twice", cell.transport,
                                     cell.direction, cell.block_size));
    }
    run.cells.push_back(std::move(cell));
  }
  return Status::Ok();
}

Result<ClusterHeatMap> ReadHeatMap(const Field& map, size_t ranks) {
  ClusterHeatMap out;
  XFER_REPORT_ASSIGN_OR_RETURN(Field direction, map.Member("direction"));
  XFER_REPORT_ASSIGN_OR_RETURN(out.direction, direction.String());
  XFER_REPORT_ASSIGN_OR_RETURN(Field block, map.Member("block_size"));
  XFER_REPORT_ASSIGN_OR_RETURN(out.block_size, block.PositiveInteger());
  XFER_REPORT_ASSIGN_OR_RETURN(Field rows, map.Member("gbps"));
  XFER_REPORT_ASSIGN_OR_RETURN(size_t count, rows.ArraySize());
  if (count != ranks) return rows.Error(fmt::format("expected {} rows, one per rank", ranks));
  for (size_t source = 0; source < count; ++source) {
    const Field row = rows.Element(source);
    XFER_REPORT_ASSIGN_OR_RETURN(size_t columns, row.ArraySize());
    if (columns != ranks) return row.Error(fmt::format("expected {} columns, one per rank", ranks));
    std::vector<std::optional<double>> figures;
    for (size_t target = 0; target < columns; ++target) {
      const Field figure = row.Element(target);
      if (figure.is_null()) {
        figures.emplace_back();
        continue;
      }
      if (target == source) return figure.Error("a rank's flow into itself");
      XFER_REPORT_ASSIGN_OR_RETURN(double gbps, figure.NonNegative());
      figures.emplace_back(gbps);
    }
    out.gbps.push_back(std::move(figures));
  }
  return out;
}

Status ReadCluster(const Field& root, RunDocument& run) {
  run.kind = RunKind::kCluster;
  run.test = "cluster matrix";
  XFER_REPORT_ASSIGN_OR_RETURN(Field meta, root.Member("run"));
  XFER_REPORT_ASSIGN_OR_RETURN(run.command_line, OptionalCommandLine(meta));
  XFER_RETURN_IF_ERROR(ReadOutcome(meta, run));
  XFER_REPORT_ASSIGN_OR_RETURN(Field config, root.Member("config"));
  XFER_REPORT_ASSIGN_OR_RETURN(Field scheme, config.Member("scheme"));
  XFER_REPORT_ASSIGN_OR_RETURN(run.scheme, scheme.String());
  XFER_REPORT_ASSIGN_OR_RETURN(Field ranks, root.Member("ranks"));
  XFER_REPORT_ASSIGN_OR_RETURN(size_t rank_count, ranks.ArraySize());
  if (rank_count < 2 || rank_count > kMaxReportRanks) {
    return ranks.Error(fmt::format("expected 2 to {} ranks, got {}", kMaxReportRanks, rank_count));
  }
  for (size_t i = 0; i < rank_count; ++i) {
    XFER_REPORT_ASSIGN_OR_RETURN(Field host, ranks.Element(i).Member("host"));
    XFER_REPORT_ASSIGN_OR_RETURN(Field hostname, host.Member("hostname"));
    XFER_REPORT_ASSIGN_OR_RETURN(std::string name, hostname.String());
    run.rank_hosts.push_back(std::move(name));
  }
  XFER_REPORT_ASSIGN_OR_RETURN(Field maps, root.Member("heat_maps"));
  XFER_REPORT_ASSIGN_OR_RETURN(size_t map_count, maps.ArraySize());
  for (size_t i = 0; i < map_count; ++i) {
    XFER_REPORT_ASSIGN_OR_RETURN(ClusterHeatMap map, ReadHeatMap(maps.Element(i), rank_count));
    run.heat_maps.push_back(std::move(map));
  }
  return Status::Ok();
}

// A matrix or cluster document names its schema; a perftest one has
// test_info.
Status ReadDocument(const json& document, RunDocument& run) {
  const Field root(document, "");
  if (!document.is_object()) {
    return InvalidArgument(fmt::format("expected a JSON object at the top, got {}",
                                       document.type_name()));
  }
  if (document.contains("schema")) {
    XFER_REPORT_ASSIGN_OR_RETURN(Field schema, root.Member("schema"));
    XFER_REPORT_ASSIGN_OR_RETURN(Field name, schema.Member("name"));
    XFER_REPORT_ASSIGN_OR_RETURN(std::string schema_name, name.String());
    if (schema_name == "xfer.cluster") return ReadCluster(root, run);
    if (schema_name != "xfer.matrix") {
      return name.Error(
          fmt::format("unknown schema '{}' (expected xfer.matrix or xfer.cluster)", schema_name));
    }
    return ReadMatrix(root, run);
  }
  if (document.contains("test_info")) return ReadPerftest(root, run);
  return InvalidArgument(
      "not an xfer run: expected a perftest --json document (test_info, results) or an "
      "xfer matrix --json document (schema xfer.matrix)");
}

}  // namespace

std::string IncompleteNote(const RunDocument& run) {
  if (run.outcome.empty() || run.outcome == "complete") return "";
  return fmt::format("Incomplete run ({}){}; only what finished is shown.", run.outcome,
                     run.error.empty() ? "" : ": " + run.error);
}

std::string_view RunKindName(RunKind kind) {
  switch (kind) {
    case RunKind::kPerftestBandwidth: return "bandwidth test";
    case RunKind::kPerftestLatency: return "latency test";
    case RunKind::kMatrix: return "matrix";
    case RunKind::kCluster: return "cluster matrix";
  }
  return "unknown";
}

std::string_view ShortUnit(std::string_view stated_unit) {
  const size_t space = stated_unit.find(' ');
  return space == std::string_view::npos ? stated_unit : stated_unit.substr(0, space);
}

double BytesPerSecToUnit(double bytes_per_sec, std::string_view stated_unit) {
  if (stated_unit == kGbits) return bytes_per_sec * 8 / 1e9;
  return bytes_per_sec / (1024.0 * 1024.0);
}

Result<RunDocument> ParseRunDocument(std::string_view name, std::string_view text) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& error) {
    // Not only parse_error: a number such as 1e999 overflows a double and
    // throws out_of_range.406, and any nlohmann exception escaping here would
    // end the process on untrusted input. The text starts with
    // "[json.exception.<kind>.<id>] ".
    std::string what = error.what();
    if (const size_t end = what.find("] "); end != std::string::npos) what = what.substr(end + 2);
    return InvalidArgument(fmt::format("{}: not valid JSON: {}", name, what));
  }
  RunDocument run;
  run.name = std::string(name);
  if (Status status = ReadDocument(document, run); !status.ok()) {
    return InvalidArgument(fmt::format("{}: {}", name, status.message()));
  }
  return run;
}

Result<RunDocument> LoadRunDocument(const std::string& path) {
  auto text = ReadInputFile(path, kMaxRunFileBytes);
  if (!text.ok()) return text.status();
  return ParseRunDocument(path, *text);
}

std::string CellStatusText(const MatrixCell& cell) {
  return cell.status == "unsupported" ? std::string("n/a") : cell.status;
}

}  // namespace xfer::report
