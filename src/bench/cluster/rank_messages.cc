#include "bench/cluster/rank_messages.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace xfer::cluster {
namespace {

using nlohmann::json;

constexpr size_t kMaxText = 4096;
constexpr size_t kMaxRdmaPorts = 256;

Status Bad(std::string_view field, std::string_view why) {
  return ProtocolError(fmt::format("a rank's message: '{}' {}", field, why));
}

Result<const json*> Field(const json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end()) return Bad(name, "is missing");
  return &*it;
}

Status Get(const json& object, const char* name, std::string& out) {
  auto value = Field(object, name);
  if (!value.ok()) return value.status();
  if (!(*value)->is_string()) return Bad(name, "is not a string");
  const auto& text = (*value)->get_ref<const std::string&>();
  if (text.size() > kMaxText) return Bad(name, "is too long");
  out = text;
  return Status::Ok();
}

template <typename T>
Status Get(const json& object, const char* name, T& out) {
  auto value = Field(object, name);
  if (!value.ok()) return value.status();
  if (!(*value)->is_number_unsigned()) return Bad(name, "is not an unsigned integer");
  const uint64_t number = (*value)->get<uint64_t>();
  if (number > std::numeric_limits<T>::max()) return Bad(name, "is out of range");
  out = static_cast<T>(number);
  return Status::Ok();
}

Status Get(const json& object, const char* name, bool& out) {
  auto value = Field(object, name);
  if (!value.ok()) return value.status();
  if (!(*value)->is_boolean()) return Bad(name, "is not a boolean");
  out = (*value)->get<bool>();
  return Status::Ok();
}

Status GetSeconds(const json& object, const char* name, size_t max, std::vector<double>& out) {
  auto value = Field(object, name);
  if (!value.ok()) return value.status();
  if (!(*value)->is_array()) return Bad(name, "is not a list");
  if ((*value)->size() > max) return Bad(name, fmt::format("holds more than {} samples", max));
  for (const json& item : **value) {
    if (!item.is_number()) return Bad(name, "holds a non-number");
    const double seconds = item.get<double>();
    if (!std::isfinite(seconds) || seconds <= 0) return Bad(name, "holds a non-positive time");
    out.push_back(seconds);
  }
  return Status::Ok();
}

// A message whose top level is an object (or, for `list`, an array).
Result<json> Parse(std::string_view text, bool list = false) {
  if (text.size() > kMaxRankMessageBytes) return Bad("message", "is too long");
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (list ? !parsed.is_array() : !parsed.is_object()) {
    return ProtocolError(fmt::format("a rank's message is not a JSON {}", list ? "list" : "object"));
  }
  return parsed;
}

json FingerprintJson(const matrix::HostFingerprint& host) {
  json rdma = json::array();
  for (const auto& port : host.rdma) {
    rdma.push_back({{"device", port.device}, {"port", port.port}, {"state", port.state},
                    {"link_layer", port.link_layer}, {"rate_gbps", port.rate_gbps}});
  }
  return {{"hostname", host.hostname}, {"kernel", host.kernel}, {"cpu_model", host.cpu_model},
          {"cpu_count", host.cpu_count}, {"xfer_version", host.xfer_version}, {"rdma", rdma}};
}

Status DecodeFingerprint(const json& object, matrix::HostFingerprint& host) {
  XFER_RETURN_IF_ERROR(Get(object, "hostname", host.hostname));
  XFER_RETURN_IF_ERROR(Get(object, "kernel", host.kernel));
  XFER_RETURN_IF_ERROR(Get(object, "cpu_model", host.cpu_model));
  XFER_RETURN_IF_ERROR(Get(object, "cpu_count", host.cpu_count));
  XFER_RETURN_IF_ERROR(Get(object, "xfer_version", host.xfer_version));
  auto rdma = Field(object, "rdma");
  if (!rdma.ok()) return rdma.status();
  if (!(*rdma)->is_array() || (*rdma)->size() > kMaxRdmaPorts) return Bad("rdma", "is not a list");
  for (const json& item : **rdma) {
    if (!item.is_object()) return Bad("rdma", "holds a non-object");
    matrix::RdmaPortFingerprint port;
    XFER_RETURN_IF_ERROR(Get(item, "device", port.device));
    XFER_RETURN_IF_ERROR(Get(item, "port", port.port));
    XFER_RETURN_IF_ERROR(Get(item, "state", port.state));
    XFER_RETURN_IF_ERROR(Get(item, "link_layer", port.link_layer));
    auto rate = Field(item, "rate_gbps");
    if (!rate.ok()) return rate.status();
    if (!(*rate)->is_number() || !std::isfinite((*rate)->get<double>())) {
      return Bad("rate_gbps", "is not a number");
    }
    port.rate_gbps = (*rate)->get<double>();
    host.rdma.push_back(std::move(port));
  }
  return Status::Ok();
}

}  // namespace

std::string EncodeHello(const RankInfo& rank) {
  json hello = {{"rank", rank.rank},
                {"local_rank", rank.local_rank},
                {"host", FingerprintJson(rank.host)},
                {"engine_address", rank.engine_address},
                {"rdma_device", rank.rdma_device},
                {"buffer_address", rank.buffer_address},
                {"buffer_length", rank.buffer_length},
                {"registered_bytes", rank.registered_bytes}};
  return hello.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<RankInfo> DecodeHello(std::string_view text) {
  auto parsed = Parse(text);
  if (!parsed.ok()) return parsed.status();
  const json& hello = *parsed;
  RankInfo rank;
  XFER_RETURN_IF_ERROR(Get(hello, "rank", rank.rank));
  XFER_RETURN_IF_ERROR(Get(hello, "local_rank", rank.local_rank));
  auto host = Field(hello, "host");
  if (!host.ok()) return host.status();
  if (!(*host)->is_object()) return Bad("host", "is not an object");
  XFER_RETURN_IF_ERROR(DecodeFingerprint(**host, rank.host));
  XFER_RETURN_IF_ERROR(Get(hello, "engine_address", rank.engine_address));
  XFER_RETURN_IF_ERROR(Get(hello, "rdma_device", rank.rdma_device));
  XFER_RETURN_IF_ERROR(Get(hello, "buffer_address", rank.buffer_address));
  XFER_RETURN_IF_ERROR(Get(hello, "buffer_length", rank.buffer_length));
  XFER_RETURN_IF_ERROR(Get(hello, "registered_bytes", rank.registered_bytes));
  return rank;
}

namespace {

json ReportJson(const FlowReport& report) {
  return {{"rank", report.rank},
          {"group", report.group},
          {"measured", report.measured},
          {"target", report.target},
          {"status", matrix::CellStatusName(report.status)},
          {"reason", report.reason},
          {"path_transport", report.path_transport},
          {"path_streams", report.path_streams},
          {"requests", report.requests},
          {"warmup_seconds", report.warmup_seconds},
          {"sample_seconds", report.sample_seconds},
          {"registered_bytes", report.registered_bytes},
          {"max_rss_bytes", report.max_rss_bytes}};
}

Result<FlowReport> ReportFromJson(const json& encoded, size_t max_samples) {
  if (!encoded.is_object()) return Bad("report", "is not an object");
  FlowReport report;
  XFER_RETURN_IF_ERROR(Get(encoded, "rank", report.rank));
  XFER_RETURN_IF_ERROR(Get(encoded, "group", report.group));
  XFER_RETURN_IF_ERROR(Get(encoded, "measured", report.measured));
  XFER_RETURN_IF_ERROR(Get(encoded, "target", report.target));
  std::string status;
  XFER_RETURN_IF_ERROR(Get(encoded, "status", status));
  bool known = false;
  for (auto candidate : {matrix::CellStatus::kOk, matrix::CellStatus::kUnsupported,
                         matrix::CellStatus::kFailed, matrix::CellStatus::kNotRun}) {
    if (status == matrix::CellStatusName(candidate)) {
      report.status = candidate;
      known = true;
    }
  }
  if (!known) return Bad("status", "is not a cell status");
  XFER_RETURN_IF_ERROR(Get(encoded, "reason", report.reason));
  XFER_RETURN_IF_ERROR(Get(encoded, "path_transport", report.path_transport));
  XFER_RETURN_IF_ERROR(Get(encoded, "path_streams", report.path_streams));
  XFER_RETURN_IF_ERROR(Get(encoded, "requests", report.requests));
  XFER_RETURN_IF_ERROR(GetSeconds(encoded, "warmup_seconds", max_samples, report.warmup_seconds));
  XFER_RETURN_IF_ERROR(GetSeconds(encoded, "sample_seconds", max_samples, report.sample_seconds));
  XFER_RETURN_IF_ERROR(Get(encoded, "registered_bytes", report.registered_bytes));
  XFER_RETURN_IF_ERROR(Get(encoded, "max_rss_bytes", report.max_rss_bytes));
  if (report.status == matrix::CellStatus::kOk && report.sample_seconds.empty()) {
    return Bad("sample_seconds", "is empty for a measured cell");
  }
  return report;
}

}  // namespace

std::string EncodeReport(const FlowReport& report) {
  return ReportJson(report).dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<FlowReport> DecodeReport(std::string_view text, size_t max_samples) {
  auto parsed = Parse(text);
  if (!parsed.ok()) return parsed.status();
  return ReportFromJson(*parsed, max_samples);
}

std::string EncodeReports(const std::vector<FlowReport>& reports) {
  json encoded = json::array();
  for (const FlowReport& report : reports) encoded.push_back(ReportJson(report));
  return encoded.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<std::vector<FlowReport>> DecodeReports(std::string_view text, size_t max_samples,
                                              size_t max_flows) {
  auto parsed = Parse(text, /*list=*/true);
  if (!parsed.ok()) return parsed.status();
  if (parsed->empty()) return Bad("reports", "is an empty list");
  if (parsed->size() > max_flows) {
    return Bad("reports", fmt::format("holds more than {} flows", max_flows));
  }
  std::vector<FlowReport> reports;
  for (const json& encoded : *parsed) {
    auto report = ReportFromJson(encoded, max_samples);
    if (!report.ok()) return report.status();
    reports.push_back(std::move(*report));
  }
  return reports;
}

}  // namespace xfer::cluster
