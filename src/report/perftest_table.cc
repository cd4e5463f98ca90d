#include "report/perftest_table.h"

#include <fmt/format.h>

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

}  // namespace

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
  std::string out = ResultLine();
  out += std::string(20, ' ') + TestTitle(info) + "\n";
  AppendField(&out, "Transport", info.transport);
  AppendField(&out, "Number of qps", info.qps);
  AppendField(&out, "Connection type", info.connection_type);
  if (ShowsTxDepth(info)) AppendField(&out, "TX depth", info.tx_depth);
  if (info.post_list > 1) AppendField(&out, "Post List", info.post_list);
  if (ShowsRxDepth(info)) AppendField(&out, "RX depth", info.rx_depth);
  if (info.kind == bench::Kind::kBandwidth) {
    AppendField(&out, "CQ Moderation", info.cq_mod);
  }
  out += ResultLine();
  return out;
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
