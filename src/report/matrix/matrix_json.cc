#include "report/matrix/matrix_json.h"

#include <cmath>

#include "bench/matrix/block_size.h"
#include "report/matrix/anchor_table.h"
#include "report/rail_timeline_report.h"
#include "report/registration_json.h"

namespace xfer::report {
namespace {

using matrix::CellResult;
using matrix::CellStatus;
using nlohmann::json;

constexpr const char* kBandwidth = "GB/s (10^9 bytes/s)";
constexpr const char* kBytes = "bytes";
constexpr const char* kSeconds = "seconds";
constexpr const char* kLinkRate = "Gb/s (10^9 bit/s)";

json NullIfEmpty(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

const char* RoleName(matrix::Role role) {
  switch (role) {
    case matrix::Role::kTarget: return "target";
    case matrix::Role::kInitiator: return "initiator";
    case matrix::Role::kLoopback: return "loopback";
  }
  return "unknown";
}

json UnitsJson() {
  return json{{"bandwidth", kBandwidth},
              {"sizes", kBytes},
              {"times", kSeconds},
              {"link_rate", kLinkRate},
              {"fields",
               {{"median_gbps", kBandwidth},
                {"min_gbps", kBandwidth},
                {"max_gbps", kBandwidth},
                {"sample_gbps", kBandwidth},
                {"block_size", kBytes},
                {"block_sizes", kBytes},
                {"transfer_size", kBytes},
                {"warmup_seconds", kSeconds},
                {"sample_seconds", kSeconds},
                {"timeout_s", kSeconds},
                {"rate_gbits", kLinkRate},
                {"ceiling.bytes_per_sec", "bytes/s"},
                {"efficiency", "median_gbps / ceiling, a fraction (1 = the ceiling)"}}}};
}

// The initiator's buffers: what registering (and, at the end, deregistering)
// each cost.
json RegistrationsJson(const matrix::MatrixRun& run) {
  json out = json::array();
  for (const auto& timing : run.registrations) out.push_back(RegistrationJson(timing));
  return out;
}

// Per transport that registered the initiator's buffers with a NIC when it
// connected: what that cost.
json NicRegistrationsJson(const matrix::MatrixRun& run) {
  json out = json::array();
  for (const auto& nic : run.nic_registrations) {
    json entry = NicRegistrationJson(nic.registration);
    entry["transport"] = nic.transport;
    out.push_back(std::move(entry));
  }
  return out;
}

json RunJson(const matrix::MatrixRun& run) {
  return json{{"command_line", run.config.command_line},
              {"xfer_version", NullIfEmpty(run.initiator.xfer_version)},
              {"start_time", NullIfEmpty(run.start_time)},
              {"end_time", NullIfEmpty(run.end_time)},
              {"outcome", matrix::RunOutcomeName(run.outcome)},
              {"error", NullIfEmpty(run.error)}};
}

json ConfigJson(const matrix::MatrixConfig& config) {
  json directions = json::array();
  for (const matrix::Direction& direction : config.directions) {
    directions.push_back(direction.Name());
  }
  const std::chrono::duration<double> timeout = config.timeout;
  return json{
      {"role", RoleName(config.role)},
      {"directions", std::move(directions)},
      {"transports", config.transports},
      {"block_sizes", config.block_sizes},
      {"transfer_size", config.transfer_size},
      {"batch", config.batch},
      {"loops", config.loops},
      {"warmup", config.warmup},
      {"streams", config.streams},
      {"rails", config.rails},
      {"memory", config.memory},
      {"remote_memory", config.remote_memory},
      {"verify", config.verify},
      {"timeout_s", timeout.count()},
      {"verbs",
       {{"device", NullIfEmpty(config.verbs.device)},
        {"port", config.verbs.port},
        {"gid_index", config.verbs.gid_index ? json(*config.verbs.gid_index) : json(nullptr)}}}};
}

// --timeline: one per column striped over several rails.
json RailTimelinesJson(const matrix::MatrixRun& run) {
  json out = json::array();
  for (const matrix::MatrixRun::ColumnTimeline& column : run.rail_timelines) {
    json timeline = RailTimelineJson(column.timeline);
    timeline["transport"] = column.transport;
    out.push_back(std::move(timeline));
  }
  return out;
}

json GbpsOrNull(const CellResult& cell, double gbps) {
  return cell.status == CellStatus::kOk ? json(gbps) : json(nullptr);
}

json CellJson(const CellResult& cell, uint64_t transfer_size) {
  json sample_gbps = json::array();
  for (double seconds : cell.sample_seconds) {
    const bool timed = seconds > 0 && std::isfinite(seconds);
    sample_gbps.push_back(timed ? json(static_cast<double>(transfer_size) / 1e9 / seconds)
                                : json(nullptr));
  }
  json path = cell.path_transport.empty()
                  ? json(nullptr)
                  : json{{"transport", cell.path_transport},
                         {"streams", cell.path_streams},
                         {"data_mover", cell.path_data_mover},
                         {"staged", cell.path_staged}};
  if (!cell.path_device.empty()) path["device"] = cell.path_device;
  if (cell.timeline_from_ms && cell.timeline_to_ms) {
    path["timeline_ms"] = {*cell.timeline_from_ms, *cell.timeline_to_ms};
  }
  if (cell.path_rails.size() > 1) {
    uint64_t total = 0;
    for (const RailInfo& rail : cell.path_rails) total += rail.bytes;
    json rails = json::array();
    for (const RailInfo& rail : cell.path_rails) {
      rails.push_back({{"local", rail.local},
                       {"remote", rail.remote},
                       {"bytes", rail.bytes},
                       {"share", total == 0 ? json(nullptr)
                                            : json(static_cast<double>(rail.bytes) /
                                                   static_cast<double>(total))}});
    }
    path["rails"] = std::move(rails);
  }
  json out{{"direction", cell.direction.Name()},
              {"op", cell.direction.op == OpCode::kWrite ? "write" : "read"},
              {"initiator_memory", cell.initiator_memory},
              {"target_memory", cell.target_memory},
              {"transport", cell.transport},
              {"block_size", cell.block_size},
              {"block_label", matrix::BlockLabel(cell.block_size)},
              {"entries_per_sample", cell.entries},
              {"requests", cell.requests},
              {"status", matrix::CellStatusName(cell.status)},
              {"reason", NullIfEmpty(cell.reason)},
              {"path", std::move(path)},
              {"warmup_seconds", cell.warmup_seconds},
              {"sample_seconds", cell.sample_seconds},
              {"sample_gbps", std::move(sample_gbps)},
              {"median_gbps", GbpsOrNull(cell, cell.median_gbps)},
              {"min_gbps", GbpsOrNull(cell, cell.min_gbps)},
              {"max_gbps", GbpsOrNull(cell, cell.max_gbps)},
              {"verified", cell.verified ? json(*cell.verified) : json(nullptr)}};
  if (cell.ceiling) {
    const bench::Ceiling& ceiling = *cell.ceiling;
    out["ceiling"] = {
        {"bytes_per_sec", ceiling.bytes_per_s ? json(*ceiling.bytes_per_s) : json(nullptr)},
        {"source", ceiling.source}};
    const std::optional<double> fraction =
        cell.status == CellStatus::kOk ? ceiling.Efficiency(cell.median_gbps * 1e9)
                                       : std::nullopt;
    out["efficiency"] = fraction ? json(*fraction) : json(nullptr);
  }
  return out;
}

}  // namespace

json HostFingerprintJson(const matrix::HostFingerprint& host) {
  json rdma = json::array();
  for (const matrix::RdmaPortFingerprint& port : host.rdma) {
    rdma.push_back({{"device", port.device},
                    {"port", port.port},
                    {"state", port.state},
                    {"link_layer", port.link_layer},
                    {"rate_gbits", port.rate_gbps > 0 ? json(port.rate_gbps) : json(nullptr)}});
  }
  return json{{"hostname", host.hostname},
              {"kernel", host.kernel},
              {"cpu_model", host.cpu_model},
              {"cpu_count", host.cpu_count > 0 ? json(host.cpu_count) : json(nullptr)},
              {"xfer_version", host.xfer_version},
              {"rdma", std::move(rdma)}};
}

json MatrixJson(const matrix::MatrixRun& run) {
  json skipped = json::array();
  for (const matrix::SkippedTransport& transport : run.skipped) {
    skipped.push_back({{"name", transport.name}, {"reason", transport.reason}});
  }
  json cells = json::array();
  for (const CellResult& cell : run.cells) {
    cells.push_back(CellJson(cell, run.config.transfer_size));
  }
  return json{{"schema", {{"name", "xfer.matrix"}, {"version", kMatrixJsonVersion}}},
              {"units", UnitsJson()},
              {"run", RunJson(run)},
              {"config", ConfigJson(run.config)},
              {"hosts",
               {{"initiator", HostFingerprintJson(run.initiator)},
                {"target", HostFingerprintJson(run.target)}}},
              {"transports", run.transports},
              {"skipped_transports", std::move(skipped)},
              {"cells", std::move(cells)},
              {"anchors", AnchorsJson(run)},
              {"registration", RegistrationsJson(run)},
              {"nic_registration", NicRegistrationsJson(run)},
              {"rail_timelines", RailTimelinesJson(run)}};
}

}  // namespace xfer::report
