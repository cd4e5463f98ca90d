// The perftest text format, checked three independent ways: golden files
// written by testdata/make_golden.py from perftest's printf formats; rows
// compared with snprintf() of the same format strings; and lines copied from
// real ib_*_bw / ib_*_lat output.
#include "report/perftest_table.h"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "report/golden_file.h"

namespace xfer::report {
namespace {

using bench::BwResult;
using bench::BwUnits;
using bench::LatDurationResult;
using bench::LatResult;

using testing::ReadGolden;

// What a terminal shows: tabs expanded to 8-column stops (as in the seeds).
std::string ExpandTabs(const std::string& line) {
  std::string out;
  for (char c : line) {
    if (c != '\t') {
      out += c;
      continue;
    }
    do {
      out += ' ';
    } while (out.size() % 8 != 0);
  }
  return out;
}

constexpr double kGbps = 125e6;

struct SeedRow {
  uint64_t size;
  double peak_gbps, avg_gbps, mpps;
};

// ../shared/seeds/000_*.txt: ib_write_bw -a --report_gbits -n 1000 -q 4.
// Mirrors SEED_ROWS in testdata/make_golden.py.
const std::vector<SeedRow> kSeedRows = {
    {2, 0.033927, 0.033892, 2.118248}, {4, 0.070985, 0.070915, 2.216091},
    {8, 0.14, 0.14, 2.234199},         {16, 0.29, 0.29, 2.234982},
    {32, 0.57, 0.57, 2.209364},        {64, 1.12, 1.12, 2.188613},
    {128, 2.25, 2.25, 2.200081},       {256, 4.38, 4.37, 2.134911},
    {512, 9.18, 9.18, 2.240921},       {1024, 17.72, 17.71, 2.162261},
    {2048, 35.40, 35.39, 2.160306},    {4096, 64.66, 64.64, 1.972775},
    {8192, 84.32, 84.29, 1.286178},    {16384, 90.10, 90.09, 0.687295},
    {32768, 91.44, 91.43, 0.348786},   {65536, 91.89, 91.89, 0.175265},
    {131072, 92.11, 92.11, 0.087845},  {262144, 92.17, 92.16, 0.043948},
    {524288, 92.20, 92.20, 0.021983},  {1048576, 92.21, 92.21, 0.010992},
    {2097152, 92.25, 92.25, 0.005499}, {4194304, 92.24, 92.24, 0.002749},
    {8388608, 92.29, 92.29, 0.001375},
};

std::vector<BwResult> SeedResults() {
  std::vector<BwResult> results;
  for (const SeedRow& row : kSeedRows) {
    results.push_back({row.size, 4000, row.peak_gbps * kGbps,
                       row.avg_gbps * kGbps, row.mpps});
  }
  return results;
}

TEST(PerftestTable, ResultLineAndBanners) {
  EXPECT_EQ(ResultLine(), std::string(87, '-') + "\n");
  EXPECT_EQ(PeakWarningLine(),
            " WARNING: BW peak won't be measured in this run.\n");
  EXPECT_EQ(ServerBanner(),
            "\n************************************\n"
            "* Waiting for client to connect... *\n"
            "************************************\n");
}

TEST(PerftestTable, BwHeaderGolden) {
  TestInfo info;
  info.transport = "shm";
  info.tx_depth = 128;
  info.cq_mod = 100;
  EXPECT_EQ(TestHeader(info), ReadGolden("bw_header_write_shm.golden"));
}

TEST(PerftestTable, SendServerGolden) {
  TestInfo info;
  info.verb = bench::Verb::kSend;
  info.role = bench::Role::kServer;
  info.transport = "tcp";
  info.qps = 2;
  info.tx_depth = 128;  // not printed on the server
  info.cq_mod = 1;
  info.rx_depth = 512;
  EXPECT_EQ(PeakWarningLine() + ServerBanner() + TestHeader(info),
            ReadGolden("send_bw_server.golden"));
}

TEST(PerftestTable, BwTablesGolden) {
  const std::vector<BwResult> results = SeedResults();
  EXPECT_EQ(BwTable(results, BwUnits::kGbps),
            ReadGolden("bw_table_gbps.golden"));
  EXPECT_EQ(BwTable(results, BwUnits::kMiBps),
            ReadGolden("bw_table_mib.golden"));
}

// Lines exactly as ib_write_bw 4.5 printed them (tabs expanded by the
// terminal), including both REPORT_FMT_EXT rows.
TEST(PerftestTable, BwRowsMatchRealPerftestOutput) {
  const std::vector<BwResult> results = SeedResults();
  // clang-format off
  const std::vector<std::string> seen = {
      " 2          4000           0.033927            0.033892            2.118248",
      " 4          4000           0.070985            0.070915            2.216091",
      " 8          4000             0.14               0.14               2.234199",
      " 8192       4000             84.32              84.29              1.286178",
      " 8388608    4000             92.29              92.29              0.001375",
  };
  // clang-format on
  const size_t index[] = {0, 1, 2, 12, 22};
  for (size_t k = 0; k < seen.size(); ++k) {
    EXPECT_EQ(ExpandTabs(BwRow(results[index[k]], BwUnits::kGbps)),
              seen[k] + "\n");
  }
  EXPECT_EQ(BwColumnHeader(BwUnits::kGbps),
            " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]"
            "   MsgRate[Mpps]\n");
}

// REPORT_FMT and REPORT_FMT_EXT of perftest 4.5-0.17, via the C library.
std::string PerftestBwRow(const BwResult& r, double peak, double avg,
                          bool ext) {
  char buf[256];
  if (ext) {
    std::snprintf(buf, sizeof buf,
                  " %-7" PRIu64 "    %" PRIu64
                  "           %-7.6lf            %-7.6lf            %-7.6lf\n",
                  r.size, r.iterations, peak, avg, r.msg_rate_mpps);
  } else {
    std::snprintf(buf, sizeof buf,
                  " %-7" PRIu64 "    %-10" PRIu64
                  "       %-7.2lf            %-7.2lf\t\t   %-7.6lf\n",
                  r.size, r.iterations, peak, avg, r.msg_rate_mpps);
  }
  return buf;
}

TEST(PerftestTable, BwRowMatchesPrintfForHandComputedRow) {
  // 65536 B x 5000 in 28.15 ms; peak window 5.6 us per message.
  const BwResult r{65536, 5000, 65536 * 1e9 / 5600.0,
                   65536.0 * 5000 * 1e9 / 28'150'000.0,
                   5000 * 1e9 / (28'150'000.0 * 1e6)};
  const double peak_mib = static_cast<double>(65536ull * 1'000'000'000ull) /
                          static_cast<double>(5600ull * 0x100000ull);
  const double avg_mib = 65536.0 * 5000 * 1e9 / (28'150'000.0 * 0x100000);
  EXPECT_EQ(BwRow(r, BwUnits::kMiBps),
            PerftestBwRow(r, peak_mib, avg_mib, false));
  EXPECT_EQ(BwRow(r, BwUnits::kMiBps),
            " 65536      5000             11160.71            11101.24\t\t"
            "   0.177620\n");
}

TEST(PerftestTable, ExtendedAccuracyOnlyBelowTenthOfGbps) {
  BwResult r{2, 1000, 0, 0.1 * kGbps, 1.0};
  EXPECT_EQ(BwRow(r, BwUnits::kGbps), PerftestBwRow(r, 0, 0.1, false));
  r.avg_bytes_per_s = 0.0999999 * kGbps;
  EXPECT_EQ(BwRow(r, BwUnits::kGbps), PerftestBwRow(r, 0, 0.0999999, true));
  // MiB/s never uses the extended format, however small.
  r.avg_bytes_per_s = 1.0;
  EXPECT_EQ(BwRow(r, BwUnits::kMiBps),
            PerftestBwRow(r, 0, 1.0 / 1048576, false));
}

TEST(PerftestTable, BwRowMatchesPrintfOnRandomValues) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> magnitude(-4, 11);
  for (int k = 0; k < 2000; ++k) {
    const uint64_t size = uint64_t{1} << (rng() % 24);
    const BwResult r{size, rng() % 100000000, std::pow(10.0, magnitude(rng)),
                     std::pow(10.0, magnitude(rng)),
                     std::pow(10.0, magnitude(rng) - 6)};
    for (BwUnits units : {BwUnits::kMiBps, BwUnits::kGbps}) {
      const double peak = ToReportUnits(r.peak_bytes_per_s, units);
      const double avg = ToReportUnits(r.avg_bytes_per_s, units);
      const bool ext = units == BwUnits::kGbps && avg < 0.1;
      ASSERT_EQ(BwRow(r, units), PerftestBwRow(r, peak, avg, ext));
    }
  }
  // Exact binary ties: printf rounds them to even.
  const BwResult tie{2, 5, 1.125 * 1048576, 0.125 * 1048576, 0.0000005};
  EXPECT_EQ(BwRow(tie, BwUnits::kMiBps),
            PerftestBwRow(tie, 1.125, 0.125, false));
}

std::vector<LatResult> LatRows() {  // mirrors LAT_ROWS in make_golden.py
  return {
      {2, 1000, 6.64, 725.77, 7.92, 10.23, 24.62, 25.91, 725.77, {}, {}, {}},
      // Sub-microsecond jitter: a floating-point stdev (perftest's reads 0.00).
      {4, 1000, 1.05, 3.2, 1.1, 1.125, 0.41, 1.5, 3.2, {}, {}, {}},
      {8388608, 1000, 712.345, 1024.5, 800.125, 801.0, 12.0, 1000.0, 1024.5, {}, {}, {}}};
}

TEST(PerftestTable, LatencyGolden) {
  TestInfo info;
  info.kind = bench::Kind::kLatency;
  info.transport = "shm";
  info.tx_depth = 1;
  info.cq_mod = 100;  // not printed for latency tests
  EXPECT_EQ(TestHeader(info) + LatTable(LatRows()),
            ReadGolden("lat_write_shm.golden"));
}

TEST(PerftestTable, LatencyRowMatchesPrintfAndRealOutput) {
  for (const LatResult& r : LatRows()) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  " %-7" PRIu64 " %" PRIu64
                  "          %-7.2f        %-7.2f      %-7.2f  \t       "
                  "%-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f\n",
                  r.size, r.iterations, r.t_min_us, r.t_max_us, r.t_typical_us,
                  r.t_avg_us, r.t_stdev_us, r.p99_us, r.p999_us);
    EXPECT_EQ(LatRow(r), buf);
  }
  // An ib_write_lat line as published (tabs kept, trailing pad trimmed).
  EXPECT_EQ(LatRow(LatRows()[0]),
            " 2       1000          6.64           725.77       7.92     \t"
            "       10.23       \t24.62  \t\t25.91   \t\t725.77 \n");
}

// -H and -U as print_report_lat prints them: "#, usec", then "%d, %g" per
// sample, 1-based.
TEST(PerftestTable, SampleListsArePerftestsLines) {
  const std::vector<double> samples = {0.5, 1.0, 1.25, 1234567.0, 0.0001234};
  std::string expected = "#, usec\n";
  for (size_t i = 0; i < samples.size(); ++i) {
    char line[64];
    std::snprintf(line, sizeof line, "%d, %g\n", static_cast<int>(i + 1), samples[i]);
    expected += line;
  }
  EXPECT_EQ(LatSampleLines(samples), expected);
  EXPECT_EQ(LatSampleLines(samples),
            "#, usec\n1, 0.5\n2, 1\n3, 1.25\n4, 1.23457e+06\n5, 0.0001234\n");
}

TEST(PerftestTable, LatencyDurationGoldenAndRealOutput) {
  const std::vector<LatDurationResult> rows = {{2, 62078352, 2.42, 413812.77},
                                               {64, 151456, 99.03, 5048.78}};
  EXPECT_EQ(LatDurationTable(rows), ReadGolden("lat_duration_table.golden"));
  // ib_read_lat -D 300, as a terminal shows it.
  EXPECT_EQ(LatDurationRow(rows[0]),
            " 2             62078352            2.42           413812.77\n");
  EXPECT_EQ(LatDurationColumnHeader(),
            " #bytes        #iterations       t_avg[usec]    tps average\n");
}

TEST(PerftestTable, HeaderLinesFollowRoleKindAndPostList) {
  TestInfo info;
  info.verb = bench::Verb::kRead;
  info.role = bench::Role::kServer;
  info.transport = "shm";
  info.post_list = 4;
  info.cq_mod = 4;
  const std::string server = TestHeader(info);
  EXPECT_NE(server.find("RDMA_Read Post List BW Test\n"), std::string::npos);
  EXPECT_EQ(server.find("TX depth"), std::string::npos);
  EXPECT_EQ(server.find("RX depth"), std::string::npos);  // not SEND
  EXPECT_NE(server.find(" Post List       : 4\n"), std::string::npos);
  EXPECT_NE(server.find(" CQ Moderation   : 4\n"), std::string::npos);

  info.verb = bench::Verb::kSend;
  info.role = bench::Role::kLoopback;  // both sides: TX and RX depth
  info.tx_depth = 64;
  info.rx_depth = 256;
  const std::string loopback = TestHeader(info);
  EXPECT_NE(loopback.find(" TX depth        : 64\n"), std::string::npos);
  EXPECT_NE(loopback.find(" RX depth        : 256\n"), std::string::npos);
}

TEST(PerftestTable, UnitConversions) {
  EXPECT_DOUBLE_EQ(ToReportUnits(1048576.0 * 3, BwUnits::kMiBps), 3.0);
  EXPECT_DOUBLE_EQ(ToReportUnits(125e6 * 2, BwUnits::kGbps), 2.0);
  EXPECT_EQ(BwUnitLabel(BwUnits::kMiBps), "MiB/sec");
  EXPECT_EQ(BwColumnHeader(BwUnits::kMiBps),
            " #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]"
            "   MsgRate[Mpps]\n");
}

}  // namespace
}  // namespace xfer::report
