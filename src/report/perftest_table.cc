#include "report/perftest_table.h"

#include <fmt/format.h>

#include <algorithm>

namespace xfer::report {
namespace {

using bench::BwUnits;

constexpr size_t kResultLineWidth = 87;
constexpr double kBytesPerMiB = 1048576.0;     // perftest's 0x100000
constexpr double kBytesPerSecPerGbps = 125e6;  // 10^9 bit/s
// perftest switches to REPORT_FMT_EXT below this many Gb/s.
constexpr double kExtendedAccuracyBelowGbps = 0.1;

// One " %-16s: %s" header row.
void AppendField(std::string* out, std::string_view label,
                 std::string_view value) {
  *out += fmt::format(" {:<16}: {}\n", label, value);
}

void AppendField(std::string* out, std::string_view label, uint32_t value) {
  AppendField(out, label, fmt::to_string(value));
}

// One two-column verbs header row: " %-16s: %s\t\t%-15s: %s".
void AppendPair(std::string* out, std::string_view left_label,
                std::string_view left_value, std::string_view right_label,
                std::string_view right_value) {
  *out += fmt::format(" {:<16}: {}\t\t{:<15}: {}\n", left_label, left_value,
                      right_label, right_value);
}


// C's "%#0<width>x": zero-padded to width with the "0x" counted in it, but
// no "0x" at all for 0 (printf's alternate form never prefixes a zero).
std::string CAltHex(uint64_t value, size_t width) {
  if (value == 0) return std::string(std::max<size_t>(width, 1), '0');
  std::string digits = fmt::format("{:x}", value);
  if (digits.size() + 2 < width) {
    digits.insert(0, width - 2 - digits.size(), '0');
  }
  return "0x" + digits;
}

// The lines every header shares, in perftest's order: TX depth (client or
// loopback), Post List, RX depth (SEND receiver) and CQ Moderation (BW).
void AppendDepthFields(std::string* out, const TestInfo& info) {
  if (ShowsTxDepth(info)) AppendField(out, "TX depth", info.tx_depth);
  if (info.post_list > 1) AppendField(out, "Post List", info.post_list);
  if (ShowsRxDepth(info)) AppendField(out, "RX depth", info.rx_depth);
  if (info.kind == bench::Kind::kBandwidth) {
    AppendField(out, "CQ Moderation", info.cq_mod);
  }
}

std::string TitleLine(const TestInfo& info) {
  return std::string(20, ' ') + TestTitle(info) + "\n";
}

// ctx_print_test_info's verbs lines, from Dual-port to Data ex. method.
std::string VerbsFields(const TestInfo& info) {
  const bench::VerbsRunInfo& verbs = *info.verbs;
  std::string out;
  AppendPair(&out, "Dual-port", kVerbsDualPort, "Device", verbs.device);
  AppendPair(&out, "Number of qps", fmt::to_string(info.qps),
             "Transport type", verbs.transport_type);
  AppendPair(&out, "Connection type", verbs.connection, "Using SRQ",
             kVerbsUsingSrq);
  AppendField(&out, "PCIe relax order", OnOff(verbs.pcie_relaxed_ordering));
  AppendField(&out, "ibv_wr* API", OnOff(verbs.wr_api));
  AppendDepthFields(&out, info);
  AppendField(&out, "Mtu", fmt::format("{}[B]", verbs.mtu_bytes));
  AppendField(&out, "Link type", verbs.link_type);
  if (verbs.gid_index != -1) {
    AppendField(&out, "GID index", fmt::to_string(verbs.gid_index));
  }
  if (verbs.shows_out_reads) {
    AppendField(&out, "Outstand reads", verbs.out_reads);
  } else {
    AppendField(&out, "Max inline data",
                fmt::format("{}[B]", verbs.max_inline));
  }
  out += fmt::format(" rdma_cm QPs\t : {}\n", kVerbsRdmaCmQps);
  AppendField(&out, "Data ex. method", kVerbsDataExchange);
  return out;
}

// Every local QP's address lines, then every remote QP's, as perftest
// prints them once the keys are exchanged.
std::string QpAddressBlock(const TestInfo& info) {
  std::string out;
  for (const bench::QpAddress& address : info.verbs->local) {
    out += QpAddressLines("local", address, info.verb);
  }
  for (const bench::QpAddress& address : info.verbs->remote) {
    out += QpAddressLines("remote", address, info.verb);
  }
  return out;
}

}  // namespace

std::string RailEnds(std::span<const RailInfo> rails) {
  std::string out = fmt::format("{}", rails.size());
  for (size_t i = 0; i < rails.size(); ++i) {
    out += fmt::format("{}{}->{}", i == 0 ? " (" : ", ", rails[i].local, rails[i].remote);
  }
  return rails.empty() ? out : out + ")";
}

std::string RailSplitLine(std::span<const RailInfo> rails) {
  uint64_t total = 0;
  for (const RailInfo& rail : rails) total += rail.bytes;
  std::string out = " rails:";
  for (size_t i = 0; i < rails.size(); ++i) {
    const double share = total == 0 ? 0 : 100.0 * static_cast<double>(rails[i].bytes) /
                                              static_cast<double>(total);
    out += fmt::format("{} {:.0f}% {}->{}", i == 0 ? "" : ",", share, rails[i].local,
                       rails[i].remote);
  }
  return out + "\n";
}

std::string ResultLine() { return std::string(kResultLineWidth, '-') + "\n"; }

std::string PeakWarningLine() {
  return " WARNING: BW peak won't be measured in this run.\n";
}

std::string ServerBanner() {
  const std::string stars(36, '*');
  return "\n" + stars + "\n* Waiting for client to connect... *\n" + stars +
         "\n";
}

std::string TestHeader(const TestInfo& info) {
  if (info.verbs) return VerbsTestHeader(info);
  std::string out = ResultLine();
  out += TitleLine(info);
  AppendField(&out, "Transport", info.transport);
  if (info.staged) AppendField(&out, "Local buffers", "staged through pinned host memory");
  if (info.notify) AppendField(&out, "Completion", "the peer's notification (--notify)");
  if (info.prepared) AppendField(&out, "Posting", "prepared transfer lists (--prepared)");
  AppendField(&out, "Number of qps", info.qps);
  if (info.rails.size() > 1) AppendField(&out, "Rails", RailEnds(info.rails));
  AppendDepthFields(&out, info);
  if (info.numa_node >= 0) AppendField(&out, "NUMA node", fmt::to_string(info.numa_node));
  out += ResultLine();
  return out;
}

std::string VerbsTestHeader(const TestInfo& info) {
  std::string out = ResultLine();
  out += TitleLine(info);
  out += VerbsFields(info);
  // perftest 26.04 prints it last in this block.
  if (info.numa_node >= 0) out += fmt::format(" NUMA node       : {}\n", info.numa_node);
  out += ResultLine();
  out += QpAddressBlock(info);
  out += ResultLine();
  return out;
}

std::string QpAddressLines(std::string_view side,
                           const bench::QpAddress& address, bench::Verb verb) {
  std::string out =
      fmt::format(" {} address: LID {} QPN {} PSN {}", side,
                  CAltHex(address.lid, 4), CAltHex(address.qpn, 6),
                  CAltHex(address.psn, 6));
  if (AddressShowsOutReads(verb)) {
    out += fmt::format(" OUT {}", CAltHex(address.out_reads, 4));
  }
  if (AddressShowsRemoteKey(verb)) {
    out += fmt::format(" RKey {} VAddr {}", CAltHex(address.rkey, 8),
                       CAltHex(address.vaddr, 16));
  }
  out += '\n';
  if (address.gid) out += fmt::format(" GID: {}\n", GidText(*address.gid));
  return out;
}

std::string GidText(const std::array<uint8_t, 16>& gid) {
  return fmt::format("{:02d}", fmt::join(gid, ":"));
}

double ToReportUnits(double bytes_per_s, BwUnits units) {
  return units == BwUnits::kGbps ? bytes_per_s / kBytesPerSecPerGbps
                                 : bytes_per_s / kBytesPerMiB;
}

std::string_view BwUnitLabel(BwUnits units) {
  return units == BwUnits::kGbps ? "Gb/sec" : "MiB/sec";
}

std::string BwColumnHeader(BwUnits units) {
  const std::string_view unit = BwUnitLabel(units);
  return fmt::format(
      " #bytes     #iterations    BW peak[{}]    BW average[{}]   "
      "MsgRate[Mpps]\n",
      unit, unit);
}

std::string BwRow(const bench::BwResult& result, BwUnits units) {
  const double peak = ToReportUnits(result.peak_bytes_per_s, units);
  const double average = ToReportUnits(result.avg_bytes_per_s, units);
  if (units == BwUnits::kGbps && average < kExtendedAccuracyBelowGbps) {
    // REPORT_FMT_EXT
    return fmt::format(
        " {:<7}    {}           {:<7.6f}            {:<7.6f}            "
        "{:<7.6f}\n",
        result.size, result.iterations, peak, average, result.msg_rate_mpps);
  }
  // REPORT_FMT as of 4.5-0.17: three spaces after the tabs.
  return fmt::format(
      " {:<7}    {:<10}       {:<7.2f}            {:<7.2f}\t\t   {:<7.6f}\n",
      result.size, result.iterations, peak, average, result.msg_rate_mpps);
}

std::string BwTable(std::span<const bench::BwResult> results, BwUnits units) {
  std::string out = BwColumnHeader(units);
  for (const bench::BwResult& result : results) out += BwRow(result, units);
  out += ResultLine();
  return out;
}

std::string LatColumnHeader() {
  return " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]"
         "    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   "
         "99.9% percentile[usec] \n";
}

std::string LatSampleLines(std::span<const double> samples, std::string_view units) {
  std::string out = fmt::format("#, {}\n", units);
  for (size_t i = 0; i < samples.size(); ++i) {
    out += fmt::format("{}, {:g}\n", i + 1, samples[i]);
  }
  return out;
}

std::string LatRow(const bench::LatResult& r) {
  // REPORT_FMT_LAT
  return fmt::format(
      " {:<7} {}          {:<7.2f}        {:<7.2f}      {:<7.2f}  \t       "
      "{:<7.2f}     \t{:<7.2f}\t\t{:<7.2f} \t\t{:<7.2f}\n",
      r.size, r.iterations, r.t_min_us, r.t_max_us, r.t_typical_us, r.t_avg_us,
      r.t_stdev_us, r.p99_us, r.p999_us);
}

std::string LatTable(std::span<const bench::LatResult> results) {
  std::string out = LatColumnHeader();
  for (const bench::LatResult& result : results) out += LatRow(result);
  out += ResultLine();
  return out;
}

std::string LatDurationColumnHeader() {
  return " #bytes        #iterations       t_avg[usec]    tps average\n";
}

std::string LatDurationRow(const bench::LatDurationResult& r) {
  // REPORT_FMT_LAT_DUR
  return fmt::format(" {:<7}       {}            {:<7.2f}        {:<7.2f}\n",
                     r.size, r.iterations, r.t_avg_us, r.tps);
}

std::string LatDurationTable(
    std::span<const bench::LatDurationResult> results) {
  std::string out = LatDurationColumnHeader();
  for (const bench::LatDurationResult& result : results) {
    out += LatDurationRow(result);
  }
  out += ResultLine();
  return out;
}

}  // namespace xfer::report
