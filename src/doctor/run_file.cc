#include "doctor/run_file.h"

#include <fmt/format.h>

#include <charconv>

#include <map>
#include <nlohmann/json.hpp>

#include "common/input_file.h"

namespace xfer::doctor {
namespace {

using nlohmann::json;

// Whether a run file's "data_mover" names the NIC: the text
// xfer::DataMoverName(DataMover::kNic) writes (the doctor reads files and
// does not link the engine; tests/e2e checks the two agree).
bool IsNicMover(const std::string& mover) { return mover == "nic"; }

Status FileError(const std::string& path, const std::string& problem) {
  return InvalidArgument(fmt::format("--run {}: {}", path, problem));
}

std::string StringOr(const json& object, const char* key, std::string fallback) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::optional<double> NumberAt(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

RateUnit PerftestUnit(const json& info) {
  const auto units = info.find("units");
  if (units == info.end() || !units->is_object()) return RateUnit::kMiBps;
  return StringOr(*units, "BW_average", "").starts_with("Gb/s") ? RateUnit::kGbps : RateUnit::kMiBps;
}

// test_info.numa.buffer_pages: {"<node>": pages}; entries that are no
// node and count are left out.
std::map<int, uint64_t> BufferPages(const json& info) {
  std::map<int, uint64_t> out;
  const auto numa = info.find("numa");
  if (numa == info.end() || !numa->is_object()) return out;
  const auto pages = numa->find("buffer_pages");
  if (pages == numa->end() || !pages->is_object()) return out;
  for (const auto& [key, count] : pages->items()) {
    int node = -1;
    const auto [end, error] = std::from_chars(key.data(), key.data() + key.size(), node);
    if (error != std::errc() || end != key.data() + key.size() || node < 0 ||
        !count.is_number_unsigned()) {
      continue;
    }
    out[node] = count.get<uint64_t>();
  }
  return out;
}

Result<std::vector<RunMeasurement>> PerftestMeasurement(const std::string& path, const json& document) {
  const json& info = document["test_info"];
  const auto results = document.find("results");
  if (!info.is_object() || results == document.end() || !results->is_array()) {
    return FileError(path, "a perftest run needs an object 'test_info' and an array 'results'");
  }
  const json* largest = nullptr;
  for (const json& row : *results) {
    if (!row.is_object() || !NumberAt(row, "MsgSize")) continue;
    if (!NumberAt(row, "BW_average_bytes_per_sec") && !NumberAt(row, "BW_average")) continue;
    if (largest == nullptr || *NumberAt(row, "MsgSize") > *NumberAt(*largest, "MsgSize")) largest = &row;
  }
  if (largest == nullptr) {
    return FileError(path, "no result row has MsgSize and BW_average (a latency run has no bandwidth to judge)");
  }
  RunMeasurement run;
  run.unit = PerftestUnit(info);
  if (const auto bytes = NumberAt(*largest, "BW_average_bytes_per_sec")) {
    run.bytes_per_s = *bytes;
  } else {
    const double average = *NumberAt(*largest, "BW_average");
    run.bytes_per_s = run.unit == RateUnit::kGbps ? average * 1e9 / 8.0 : average * 1048576.0;
  }
  const std::string test = StringOr(info, "test", "perftest run");
  run.label = fmt::format("{} at {} B", test, static_cast<uint64_t>(*NumberAt(*largest, "MsgSize")));
  run.transport = StringOr(info, "transport", "");
  run.device = StringOr(info, "Device", "");
  if (const auto port = NumberAt(info, "ib_port")) run.port = static_cast<int>(*port);
  if (const auto mtu = NumberAt(info, "Mtu")) run.mtu_bytes = static_cast<int>(*mtu);
  run.rdma_link = info.contains("data_mover") ? IsNicMover(StringOr(info, "data_mover", ""))
                                             : !run.device.empty();
  run.unreliable_datagram = StringOr(info, "Connection_type", "") == "UD";
  if (const auto qps = NumberAt(info, "Number_of_qps")) run.qps = static_cast<int>(*qps);
  run.buffer_pages = BufferPages(info);
  return std::vector<RunMeasurement>{run};
}

Result<std::vector<RunMeasurement>> MatrixMeasurements(const std::string& path, const json& document) {
  const auto cells = document.find("cells");
  if (cells == document.end() || !cells->is_array()) return FileError(path, "a matrix run needs an array 'cells'");
  std::string device;
  int port = 1;
  if (const auto config = document.find("config"); config != document.end() && config->is_object()) {
    if (const auto verbs = config->find("verbs"); verbs != config->end() && verbs->is_object()) {
      device = StringOr(*verbs, "device", "");
      if (const auto p = NumberAt(*verbs, "port")) port = static_cast<int>(*p);
    }
  }
  std::map<std::string, std::pair<double, RunMeasurement>> largest;
  for (const json& cell : *cells) {
    if (!cell.is_object() || StringOr(cell, "status", "") != "ok") continue;
    const auto median = NumberAt(cell, "median_gbps");
    const auto block = NumberAt(cell, "block_size");
    if (!median || !block) continue;
    RunMeasurement run;
    run.transport = StringOr(cell, "transport", "");
    run.device = device;
    if (const auto route = cell.find("path"); route != cell.end() && route->is_object()) {
      run.transport = StringOr(*route, "transport", run.transport);
      run.rdma_link = IsNicMover(StringOr(*route, "data_mover", ""));
    }
    run.port = port;
    run.bytes_per_s = *median * 1e9;
    run.unit = RateUnit::kGBps;
    const std::string direction = StringOr(cell, "direction", "?");
    run.label = fmt::format("matrix {} {} {}", direction, run.transport, StringOr(cell, "block_label", "?"));
    const std::string key = direction + "/" + run.transport;
    if (const auto it = largest.find(key); it == largest.end() || *block > it->second.first) {
      largest[key] = {*block, run};
    }
  }
  std::vector<RunMeasurement> runs;
  for (auto& [key, entry] : largest) runs.push_back(std::move(entry.second));
  if (runs.empty()) return FileError(path, "no matrix cell has status ok and a median_gbps");
  return runs;
}

}  // namespace

Result<std::vector<RunMeasurement>> LoadRunFile(const std::string& path, RunOutcome* outcome) {
  auto read = ReadInputFile(path, kMaxRunFileBytes);
  if (!read.ok()) return read.status().WithContext("--run");
  const std::string& text = *read;
  json document;
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return FileError(path, "the file is empty: expected the --json document of an xfer run");
  }
  try {
    document = json::parse(text);
  } catch (const json::exception& error) {
    // Every nlohmann exception, not only parse_error: 1e999 throws
    // out_of_range, and the file is untrusted. In xfer's words: without
    // the library's "[json.exception.<kind>.<id>] " prefix.
    std::string what = error.what();
    if (const size_t end = what.find("] "); end != std::string::npos) what = what.substr(end + 2);
    return FileError(path, fmt::format("not valid JSON: {}", what));
  }
  if (!document.is_object()) return FileError(path, "the top level is not a JSON object");
  // The perftest tests keep the outcome at the top level, the matrices
  // under "run".
  const auto run = document.find("run");
  const json& ended = run != document.end() && run->is_object() ? *run : document;
  if (outcome != nullptr) {
    outcome->outcome = StringOr(ended, "outcome", "");
    outcome->error = StringOr(ended, "error", "");
  }
  if (document.contains("test_info")) return PerftestMeasurement(path, document);
  const auto schema = document.find("schema");
  const std::string name = schema != document.end() && schema->is_object()
                               ? StringOr(*schema, "name", "")
                               : std::string();
  if (name == "xfer.matrix") return MatrixMeasurements(path, document);
  if (name == "xfer.cluster") {
    return FileError(path,
                     "a cluster matrix file (xfer.cluster): those are not judged yet; give the "
                     "--json of a perftest test or of xfer matrix between two hosts");
  }
  return FileError(path, "neither a perftest run (no 'test_info') nor an xfer matrix run (no schema 'xfer.matrix')");
}

}  // namespace xfer::doctor
