#include "report/json_report.h"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "bench/utc_time.h"
#include "common/output_file.h"
#include "report/matrix/matrix_json.h"
#include "report/perftest_table.h"
#include "report/registration_json.h"

namespace xfer::report {
namespace {

using nlohmann::json;

std::string_view RoleName(bench::Role role) {
  switch (role) {
    case bench::Role::kServer:
      return "server";
    case bench::Role::kClient:
      return "client";
    case bench::Role::kLoopback:
      return "loopback";
  }
  return "unknown";
}

// perftest's JSON test name: the title with '_' for ' '.
std::string JsonTestName(const TestInfo& info) {
  std::string name = TestTitle(info);
  for (char& c : name) {
    if (c == ' ') c = '_';
  }
  return name;
}

json BwUnitsObject(bench::BwUnits units) {
  const char* bw = units == bench::BwUnits::kGbps ? "Gb/s (10^9 bit/s)"
                                                  : "MiB/s (2^20 bytes/s)";
  return json{{"MsgSize", "bytes"},
              {"BW_peak", bw},
              {"BW_average", bw},
              {"MsgRate", "Mpps (10^6 messages/s)"},
              {"BW_peak_bytes_per_sec", "bytes/s"},
              {"BW_average_bytes_per_sec", "bytes/s"},
              {"ceiling.bytes_per_sec", "bytes/s"},
              {"efficiency", "BW_average_bytes_per_sec / ceiling, a fraction (1 = the ceiling)"}};
}

json LatUnitsObject(bool duration_mode, bool cycles) {
  if (duration_mode) {
    return json{
        {"MsgSize", "bytes"}, {"t_avg", "us"}, {"tps_average", "exchanges/s"}};
  }
  json units{{"MsgSize", "bytes"}};
  for (const char* key : {"t_min", "t_max", "t_typical", "t_avg", "t_stdev",
                          "percentile_99", "percentile_99.9"}) {
    units[key] = cycles ? "cycles (-C)" : "us";
  }
  units["distribution"] = "us (min, max, percentiles); ns (buckets_ns)";
  return units;
}


// One QP's key message, with the fields its header line prints.
json QpAddressObject(const bench::QpAddress& address, bench::Verb verb) {
  json out{{"LID", address.lid}, {"QPN", address.qpn}, {"PSN", address.psn}};
  if (AddressShowsOutReads(verb)) out["OUT"] = address.out_reads;
  if (AddressShowsRemoteKey(verb)) {
    out["RKey"] = address.rkey;
    out["VAddr"] = address.vaddr;
  }
  if (address.gid) out["GID"] = GidText(*address.gid);
  return out;
}

json QpAddressArray(const std::vector<bench::QpAddress>& addresses,
                    bench::Verb verb) {
  json out = json::array();
  for (const bench::QpAddress& address : addresses) {
    out.push_back(QpAddressObject(address, verb));
  }
  return out;
}

// perftest's --out_json verbs keys, for the lines VerbsTestHeader prints.
void AddVerbsInfo(const TestInfo& info, json& out) {
  const bench::VerbsRunInfo& verbs = *info.verbs;
  out["Connection_type"] = verbs.connection;
  out["Dual_port"] = kVerbsDualPort;
  out["Device"] = verbs.device;
  out["ib_port"] = verbs.ib_port;
  out["Transport_type"] = verbs.transport_type;
  out["Using_SRQ"] = kVerbsUsingSrq;
  out["PCIe_relax_order"] = OnOff(verbs.pcie_relaxed_ordering);
  out["ibv_wr_API"] = OnOff(verbs.wr_api);
  out["Mtu"] = verbs.mtu_bytes;
  out["Link_type"] = verbs.link_type;
  if (verbs.gid_index != -1) out["GID_index"] = verbs.gid_index;
  if (verbs.shows_out_reads) {
    out["Outstand_reads"] = verbs.out_reads;
  } else {
    out["Max_inline_data"] = verbs.max_inline;
  }
  out["rdma_cm_QPs"] = kVerbsRdmaCmQps;
  out["Data_ex_method"] = kVerbsDataExchange;
  out["local_address"] = QpAddressArray(verbs.local, info.verb);
  out["remote_address"] = QpAddressArray(verbs.remote, info.verb);
}

}  // namespace

namespace {

// Each rail's state changes, oldest first.
json RailEventsJson(std::span<const RailEvent> events) {
  json out = json::array();
  for (const RailEvent& event : events) {
    out.push_back({{"time", bench::UtcTime(event.at, 6)}, {"up", event.up}, {"reason", event.reason}});
  }
  return out;
}

// Each rail's ends, the bytes its slices carried and their share of all.
json RailsJson(std::span<const RailInfo> rails) {
  uint64_t total = 0;
  for (const RailInfo& rail : rails) total += rail.bytes;
  json out = json::array();
  for (const RailInfo& rail : rails) {
    out.push_back({{"local", rail.local},
                   {"remote", rail.remote},
                   {"bytes", rail.bytes},
                   {"slices", rail.slices},
                   {"share", total == 0 ? json(nullptr)
                                        : json(static_cast<double>(rail.bytes) /
                                               static_cast<double>(total))},
                   {"bytes_per_sec_estimate", rail.bytes_per_sec},
                   {"up", rail.up},
                   {"failure", rail.up ? json(nullptr) : json(rail.failure)},
                   {"retried_bytes", rail.retried_bytes},
                   {"events", RailEventsJson(rail.events)}});
  }
  return out;
}

}  // namespace

json JsonTestInfo(const TestInfo& info) {
  const bool bw = info.kind == bench::Kind::kBandwidth;
  json out{{"test", JsonTestName(info)},
           {"transport", info.transport},
           {"data_mover", DataMoverName(info.data_mover)},
           {"staged", info.staged},
           {"role", RoleName(info.role)},
           {"Number_of_qps", info.qps}};
  if (info.notify) out["notify"] = true;
  if (info.prepared) out["prepared"] = true;
  if (info.registration) out["registration"] = RegistrationJson(*info.registration);
  if (info.rails.size() > 1) out["rails"] = RailsJson(info.rails);
  if (!info.numa_placement.empty()) {
    out["numa"] = {{"node", info.numa_node >= 0 ? json(info.numa_node) : json(nullptr)},
                   {"placement", info.numa_placement}};
    if (!info.buffer_pages.empty() || info.buffer_pages_unplaced != 0) {
      json pages = json::object();
      for (const auto& [node, count] : info.buffer_pages) pages[std::to_string(node)] = count;
      out["numa"]["buffer_pages"] = pages;
      out["numa"]["buffer_pages_unplaced"] = info.buffer_pages_unplaced;
    }
  }
  if (ShowsTxDepth(info)) out["TX_depth"] = info.tx_depth;
  if (bw) out["CQ_Moderation"] = info.cq_mod;
  out["Post_list"] = info.post_list;
  if (ShowsRxDepth(info)) out["RX_depth"] = info.rx_depth;
  if (info.verbs) AddVerbsInfo(info, out);
  out["mode"] = info.duration_s > 0 ? "duration" : "iterations";
  out["duration_s"] = info.duration_s;
  out["units"] =
      bw ? BwUnitsObject(info.units) : LatUnitsObject(info.duration_s > 0, info.report_cycles);
  return out;
}

namespace {

json CeilingJson(const bench::Ceiling& ceiling) {
  return json{{"bytes_per_sec", ceiling.bytes_per_s ? json(*ceiling.bytes_per_s) : json(nullptr)},
              {"source", ceiling.source}};
}

void AddEfficiency(const std::map<uint64_t, bench::Ceiling>& ceilings, const bench::BwResult& r,
                   json& row) {
  const auto ceiling = ceilings.find(r.size);
  if (ceiling == ceilings.end()) return;
  row["ceiling"] = CeilingJson(ceiling->second);
  const std::optional<double> fraction = ceiling->second.Efficiency(r.avg_bytes_per_s);
  row["efficiency"] = fraction ? json(*fraction) : json(nullptr);
}

json BwRows(const TestInfo& info, std::span<const bench::BwResult> results,
            const std::map<uint64_t, bench::Ceiling>& ceilings = {}) {
  json rows = json::array();
  for (const bench::BwResult& r : results) {
    json row =
        {{"MsgSize", r.size},
         {"n_iterations", r.iterations},
         // 0 is what the loop leaves when it measured no peak (-N, or
         // perftest's too-short run): not measured, not a zero rate.
         {"BW_peak", r.peak_bytes_per_s > 0 ? json(ToReportUnits(r.peak_bytes_per_s, info.units))
                                            : json(nullptr)},
         {"BW_average", ToReportUnits(r.avg_bytes_per_s, info.units)},
         {"MsgRate", r.msg_rate_mpps},
         {"BW_peak_bytes_per_sec",
          r.peak_bytes_per_s > 0 ? json(r.peak_bytes_per_s) : json(nullptr)},
         {"BW_average_bytes_per_sec", r.avg_bytes_per_s}};
    AddEfficiency(ceilings, r, row);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

json BwJsonReport(const TestInfo& info, std::span<const bench::BwResult> results,
                  std::span<const bench::BwResult> peer_results,
                  const std::map<uint64_t, bench::Ceiling>& ceilings) {
  json document{{"test_info", JsonTestInfo(info)},
                {"results", BwRows(info, results, ceilings)}};
  if (!peer_results.empty()) document["peer_results"] = BwRows(info, peer_results);
  return document;
}

// {"samples", "dropped", "min", "max", "percentiles": {"25": us, ...},
// "buckets_ns": [[from, to, count], ...]}.
json DistributionJson(const bench::LatDistribution& d) {
  json percentiles = json::object();
  for (const auto& [p, us] : d.percentiles) percentiles[fmt::format("{:g}", p)] = us;
  json buckets = json::array();
  for (const bench::LatBucket& b : d.buckets) buckets.push_back({b.from_ns, b.to_ns, b.count});
  return json{{"samples", d.samples},       {"dropped", d.dropped},
              {"min", d.min_us},            {"max", d.max_us},
              {"percentiles", percentiles}, {"buckets_ns", buckets}};
}

json LatJsonReport(const TestInfo& info,
                   std::span<const bench::LatResult> results) {
  json rows = json::array();
  for (const bench::LatResult& r : results) {
    rows.push_back({{"MsgSize", r.size},
                    {"n_iterations", r.iterations},
                    {"t_min", r.t_min_us},
                    {"t_max", r.t_max_us},
                    {"t_typical", r.t_typical_us},
                    {"t_avg", r.t_avg_us},
                    {"t_stdev", r.t_stdev_us},
                    {"percentile_99", r.p99_us},
                    {"percentile_99.9", r.p999_us}});
    // The side that took the samples has their distribution.
    if (r.distribution.samples != 0) rows.back()["distribution"] = DistributionJson(r.distribution);
  }
  return json{{"test_info", JsonTestInfo(info)}, {"results", std::move(rows)}};
}

json LatDurationJsonReport(const TestInfo& info,
                           std::span<const bench::LatDurationResult> results) {
  json rows = json::array();
  for (const bench::LatDurationResult& r : results) {
    rows.push_back({{"MsgSize", r.size},
                    {"n_iterations", r.iterations},
                    {"t_avg", r.t_avg_us},
                    {"tps_average", r.tps}});
  }
  return json{{"test_info", JsonTestInfo(info)}, {"results", std::move(rows)}};
}

json RunProvenanceJson(std::span<const std::string> command_line,
                       const matrix::HostFingerprint& host) {
  return json{{"command_line", command_line}, {"fingerprint", HostFingerprintJson(host)}};
}

json RunOutcomeJson(const Status& status, int signal) {
  if (status.ok()) return json{{"outcome", "complete"}, {"error", nullptr}};
  return json{{"outcome", signal != 0 ? "interrupted" : "failed"}, {"error", status.ToString()}};
}

Status CheckJsonWritable(const std::string& path) { return PrepareOutput(path).status(); }

Status WriteJsonFile(const std::string& path, const json& document) {
  return WriteOutputFile(path, document.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
}

}  // namespace xfer::report
