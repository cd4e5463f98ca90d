// perftest 4.5's header for RDMA verbs runs (ctx_print_test_info and
// ctx_print_pingpong_data): golden files written by testdata/make_golden.py
// from perftest's formats through C's snprintf, address lines compared with
// snprintf directly, the atomic titles, the console reporter's choice of
// header, and the verbs keys of the --json document.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "report/console_reporter.h"
#include "report/json_report.h"
#include "report/perftest_table.h"
#include "report/run_header.h"
#include "report/golden_file.h"

namespace xfer::report {
namespace {

using bench::QpAddress;
using bench::VerbsRunInfo;
using nlohmann::json;

using testing::ReadGolden;

// ::ffff:10.0.0.<last>, as RoCE v2 GIDs of IPv4 addresses look.
std::array<uint8_t, 16> Ipv4Gid(uint8_t last) {
  return {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 10, 0, 0, last};
}

QpAddress Qp(uint16_t lid, uint32_t qpn, uint32_t psn, uint32_t rkey,
             uint64_t vaddr) {
  QpAddress qp;
  qp.lid = lid;
  qp.qpn = qpn;
  qp.psn = psn;
  qp.rkey = rkey;
  qp.vaddr = vaddr;
  return qp;
}

// Mirrors VERBS_WRITE_BW in testdata/make_golden.py.
TestInfo WriteBwTwoQpsWithGids() {
  TestInfo info;
  info.transport = "verbs";
  info.qps = 2;
  info.tx_depth = 128;
  info.cq_mod = 100;
  VerbsRunInfo verbs;
  verbs.device = "rxe0";
  verbs.transport_type = "IB";
  verbs.connection = "RC";
  verbs.mtu_bytes = 1024;
  verbs.link_type = "Ethernet";
  verbs.gid_index = 1;
  verbs.max_inline = 0;
  verbs.local = {Qp(0, 0x11, 0x6b1a2c, 0x123d, 0x7f3a5c000000),
                 Qp(0, 0x12, 0x1b2c3d, 0x123d, 0x7f3a5c010000)};
  verbs.remote = {Qp(0, 0x21, 0xa0b0c, 0x4567, 0x7fbb4c981000),
                  Qp(0, 0x22, 0, 0x4567, 0x7fbb4c991000)};
  for (QpAddress& qp : verbs.local) qp.gid = Ipv4Gid(5);
  for (QpAddress& qp : verbs.remote) qp.gid = Ipv4Gid(4);
  info.verbs = verbs;
  return info;
}

// Mirrors VERBS_READ_BW.
TestInfo ReadBwWithOutReads() {
  TestInfo info;
  info.verb = bench::Verb::kRead;
  info.transport = "verbs";
  info.tx_depth = 128;
  info.cq_mod = 100;
  VerbsRunInfo verbs;
  verbs.device = "mlx5_0";
  verbs.mtu_bytes = 4096;
  verbs.link_type = "IB";
  verbs.shows_out_reads = true;
  verbs.out_reads = 16;
  verbs.max_inline = 99;  // not printed for READ
  verbs.local = {Qp(1, 0x108, 0x63ad7d, 0x17eedf, 0x7f760c947000)};
  verbs.remote = {Qp(2, 0x76, 0xf3810c, 0x201600, 0x7fbb4c981000)};
  verbs.local[0].out_reads = 16;
  verbs.remote[0].out_reads = 16;
  info.verbs = verbs;
  return info;
}

// Mirrors VERBS_SEND_LAT.
TestInfo SendLatUdWithoutGid() {
  TestInfo info;
  info.verb = bench::Verb::kSend;
  info.kind = bench::Kind::kLatency;
  info.transport = "verbs";
  info.tx_depth = 1;
  info.cq_mod = 1;  // not printed for latency tests
  VerbsRunInfo verbs;
  verbs.device = "mlx5_1";
  verbs.connection = "UD";
  verbs.mtu_bytes = 2048;
  verbs.link_type = "IB";
  verbs.max_inline = 236;
  verbs.local = {Qp(0x1a, 0x3f1, 0x12, 0xdead, 0xbeef)};  // no RKey printed
  verbs.remote = {Qp(0x1b, 0x3f2, 0xabcdef, 0xdead, 0xbeef)};
  info.verbs = verbs;
  return info;
}

TEST(VerbsHeader, WriteBwTwoQpsWithGidsGolden) {
  const TestInfo info = WriteBwTwoQpsWithGids();
  EXPECT_EQ(VerbsTestHeader(info), ReadGolden("verbs_write_bw.golden"));
  EXPECT_EQ(TestHeader(info), VerbsTestHeader(info));
}

// perftest 26.04 ends the first block with the node it runs on.
TEST(VerbsHeader, TheNumaNodeEndsTheFirstBlockAsPerftestPrintsIt) {
  TestInfo info = WriteBwTwoQpsWithGids();
  EXPECT_EQ(TestHeader(info).find("NUMA node"), std::string::npos);  // unknown: not printed
  info.numa_node = 1;
  const std::string header = TestHeader(info);
  EXPECT_NE(header.find(" Data ex. method : Ethernet\n NUMA node       : 1\n-----"),
            std::string::npos)
      << header;
  info.verbs.reset();
  info.transport = "tcp";
  EXPECT_NE(TestHeader(info).find(" NUMA node       : 1\n-----"), std::string::npos);
}

TEST(VerbsHeader, ReadBwOutstandingReadsGolden) {
  EXPECT_EQ(TestHeader(ReadBwWithOutReads()),
            ReadGolden("verbs_read_bw.golden"));
}

TEST(VerbsHeader, SendLatWithoutGidGolden) {
  EXPECT_EQ(TestHeader(SendLatUdWithoutGid()),
            ReadGolden("verbs_send_lat.golden"));
}

// The lines that matter most, spelled out (tabs included) so that a
// regenerated golden cannot hide a change.
TEST(VerbsHeader, ExactLinesOfTheWriteHeader) {
  const std::string text = TestHeader(WriteBwTwoQpsWithGids());
  for (const char* line :
       {"\n Dual-port       : OFF\t\tDevice         : rxe0\n",
        "\n Number of qps   : 2\t\tTransport type : IB\n",
        "\n Connection type : RC\t\tUsing SRQ      : OFF\n",
        "\n PCIe relax order: OFF\n ibv_wr* API     : OFF\n",
        "\n Mtu             : 1024[B]\n Link type       : Ethernet\n"
        " GID index       : 1\n Max inline data : 0[B]\n"
        " rdma_cm QPs\t : OFF\n Data ex. method : Ethernet\n",
        "\n local address: LID 0000 QPN 0x0011 PSN 0x6b1a2c RKey 0x00123d "
        "VAddr 0x007f3a5c000000\n"
        " GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:00:00:05\n",
        "\n remote address: LID 0000 QPN 0x0022 PSN 000000 RKey 0x004567 "
        "VAddr 0x007fbb4c991000\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line;
  }
  // No xfer transport line in a verbs header.
  EXPECT_EQ(text.find(" Transport       :"), std::string::npos);
}

TEST(VerbsHeader, FlagsDriveTheirLines) {
  TestInfo info = WriteBwTwoQpsWithGids();
  info.verbs->pcie_relaxed_ordering = true;
  info.verbs->wr_api = true;
  info.verbs->transport_type = "IW";
  info.post_list = 4;
  const std::string text = TestHeader(info);
  EXPECT_NE(text.find(" PCIe relax order: ON\n ibv_wr* API     : ON\n"),
            std::string::npos);
  EXPECT_NE(text.find("Transport type : IW\n"), std::string::npos);
  EXPECT_NE(text.find("RDMA_Write Post List BW Test\n"), std::string::npos);
  EXPECT_NE(text.find(" TX depth        : 128\n Post List       : 4\n"
                      " CQ Moderation   : 100\n"),
            std::string::npos);

  info.role = bench::Role::kServer;  // a unidirectional server posts nothing
  info.verbs->gid_index = -1;
  const std::string server = TestHeader(info);
  EXPECT_EQ(server.find("TX depth"), std::string::npos);
  EXPECT_EQ(server.find("GID index"), std::string::npos);

  TestInfo send = SendLatUdWithoutGid();
  send.kind = bench::Kind::kBandwidth;
  send.role = bench::Role::kServer;
  send.rx_depth = 512;
  const std::string receiver = TestHeader(send);
  EXPECT_NE(receiver.find(" RX depth        : 512\n CQ Moderation   : 1\n"),
            std::string::npos);
}

// " %s address: LID %#04x QPN %#06x PSN %#06x" [+ " OUT %#04x"]
// [+ " RKey %#08x VAddr %#016llx"], through the C library.
std::string PerftestAddress(const char* side, const QpAddress& a, bool out,
                            bool rkey) {
  char buf[256];
  int n = std::snprintf(buf, sizeof buf,
                        " %s address: LID %#04x QPN %#06x PSN %#06x", side,
                        static_cast<unsigned>(a.lid), a.qpn, a.psn);
  std::string line(buf, static_cast<size_t>(n));
  if (out) {
    n = std::snprintf(buf, sizeof buf, " OUT %#04x", a.out_reads);
    line.append(buf, static_cast<size_t>(n));
  }
  if (rkey) {
    n = std::snprintf(buf, sizeof buf, " RKey %#08x VAddr %#016llx", a.rkey,
                      static_cast<unsigned long long>(a.vaddr));
    line.append(buf, static_cast<size_t>(n));
  }
  return line + "\n";
}

TEST(VerbsHeader, AddressLinesMatchPrintfForEveryVerb) {
  std::mt19937_64 rng(7);
  for (int k = 0; k < 3000; ++k) {
    QpAddress a;
    // Small values often: 0 and 1 are where C's '#' flag is peculiar.
    auto pick = [&rng](uint64_t mask) {
      return rng() % 4 == 0 ? rng() % 3 : rng() & mask;
    };
    a.lid = static_cast<uint16_t>(pick(0xffff));
    a.qpn = static_cast<uint32_t>(pick(0xffffff));
    a.psn = static_cast<uint32_t>(pick(0xffffff));
    a.out_reads = static_cast<uint32_t>(pick(0xff));
    a.rkey = static_cast<uint32_t>(pick(0xffffffff));
    a.vaddr = pick(~uint64_t{0});
    ASSERT_EQ(QpAddressLines("local", a, bench::Verb::kWrite),
              PerftestAddress("local", a, false, true));
    ASSERT_EQ(QpAddressLines("remote", a, bench::Verb::kRead),
              PerftestAddress("remote", a, true, true));
    ASSERT_EQ(QpAddressLines("local", a, bench::Verb::kSend),
              PerftestAddress("local", a, false, false));
    ASSERT_EQ(QpAddressLines("local", a, bench::Verb::kAtomic),
              PerftestAddress("local", a, false, false));
  }
}

TEST(VerbsHeader, GidLineIsDecimalAndOnlyWithAGid) {
  QpAddress a;
  EXPECT_EQ(QpAddressLines("local", a, bench::Verb::kAtomic),
            " local address: LID 0000 QPN 000000 PSN 000000\n");
  a.gid = std::array<uint8_t, 16>{254, 128, 0, 0, 0, 0, 0, 0,
                                  2, 2, 201, 255, 254, 7, 1, 9};
  EXPECT_EQ(QpAddressLines("local", a, bench::Verb::kAtomic),
            " local address: LID 0000 QPN 000000 PSN 000000\n"
            " GID: 254:128:00:00:00:00:00:00:02:02:201:255:254:07:01:09\n");
  EXPECT_EQ(GidText(*a.gid),
            "254:128:00:00:00:00:00:00:02:02:201:255:254:07:01:09");
}

TEST(VerbsHeader, AtomicTitlesNameTheOperation) {
  TestInfo info;
  info.verb = bench::Verb::kAtomic;
  EXPECT_EQ(VerbName(bench::Verb::kAtomic), "Atomic");
  EXPECT_EQ(TestTitle(info), "Atomic FETCH_AND_ADD BW Test");
  info.atomic_type = bench::AtomicType::kCompareAndSwap;
  info.bidirectional = true;
  info.post_list = 2;
  EXPECT_EQ(TestTitle(info), "Atomic CMP_AND_SWAP Bidirectional Post List BW Test");
  info.kind = bench::Kind::kLatency;
  EXPECT_EQ(TestTitle(info), "Atomic CMP_AND_SWAP Latency Test");
  // The atomic type is for atomic tests only.
  info.verb = bench::Verb::kWrite;
  EXPECT_EQ(TestTitle(info), "RDMA_Write Latency Test");
}

TEST(VerbsHeader, AtomicAddressesCarryNoKeyAndHeaderShowsOutstandReads) {
  TestInfo info = ReadBwWithOutReads();
  info.verb = bench::Verb::kAtomic;
  const std::string text = TestHeader(info);
  EXPECT_NE(text.find("                    Atomic FETCH_AND_ADD BW Test\n"),
            std::string::npos);
  EXPECT_NE(text.find(" Outstand reads  : 16\n"), std::string::npos);
  EXPECT_NE(text.find(" local address: LID 0x01 QPN 0x0108 PSN 0x63ad7d\n"),
            std::string::npos);
  EXPECT_EQ(text.find("RKey"), std::string::npos);
  EXPECT_EQ(text.find("OUT"), std::string::npos);
}

TEST(VerbsHeader, MakeTestInfoCarriesVerbsInfoAndAtomicType) {
  bench::BenchParams params;
  params.verb = bench::Verb::kAtomic;
  params.role = bench::Role::kClient;
  params.verbs.atomic_type = bench::AtomicType::kCompareAndSwap;
  bench::RunInfo run;
  run.transport = "verbs";
  EXPECT_FALSE(MakeTestInfo(params, run).verbs.has_value());
  run.verbs = WriteBwTwoQpsWithGids().verbs;
  run.verbs->connection = "UC";
  const TestInfo info = MakeTestInfo(params, run);
  ASSERT_TRUE(info.verbs.has_value());
  EXPECT_EQ(info.verbs->device, "rxe0");
  EXPECT_EQ(info.verbs->local.size(), 2u);
  EXPECT_EQ(info.verbs->connection, "UC");
  EXPECT_EQ(info.atomic_type, bench::AtomicType::kCompareAndSwap);
}

// Reads back what a ConsoleReporter printed into a temporary file.
std::string Printed(std::FILE* file) {
  std::rewind(file);
  std::string text;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, file)) > 0;) {
    text.append(buf, n);
  }
  return text;
}

TEST(VerbsHeader, ConsoleReporterPrintsTheVerbsBlockOnlyForVerbsRuns) {
  bench::BenchParams params;
  params.role = bench::Role::kClient;
  params.qps = 2;
  bench::RunInfo run;
  run.transport = "verbs";
  run.qps = 2;
  run.tx_depth = 128;
  run.cq_mod = 100;
  run.verbs = WriteBwTwoQpsWithGids().verbs;
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  ConsoleReporter reporter(params, file);
  reporter.OnStart(run);
  reporter.OnBandwidth({8, 2000, 1e6, 1e6, 0.1});
  reporter.Finish();
  const std::string text = Printed(file);
  std::fclose(file);
  const std::string header = ReadGolden("verbs_write_bw.golden");
  ASSERT_GE(text.size(), header.size());
  EXPECT_EQ(text.substr(0, header.size()), header);
  EXPECT_EQ(text.substr(header.size(), 14), " #bytes     #i");

  run.verbs.reset();
  run.transport = "shm";
  std::FILE* plain = std::tmpfile();
  ASSERT_NE(plain, nullptr);
  ConsoleReporter engine(params, plain);
  engine.OnStart(run);
  const std::string engine_text = Printed(plain);
  std::fclose(plain);
  EXPECT_NE(engine_text.find(" Transport       : shm\n"), std::string::npos);
  EXPECT_EQ(engine_text.find("Dual-port"), std::string::npos);
}

TEST(VerbsJson, TestInfoGainsDeviceQpsAndAddresses) {
  const std::vector<bench::BwResult> rows = {{65536, 5000, 1e9, 1e9, 0.015}};
  const json doc = BwJsonReport(WriteBwTwoQpsWithGids(), rows);
  const json& info = doc.at("test_info");
  EXPECT_EQ(info.at("transport"), "verbs");
  EXPECT_EQ(info.at("Device"), "rxe0");
  EXPECT_EQ(info.at("Connection_type"), "RC");
  EXPECT_EQ(info.at("Transport_type"), "IB");
  EXPECT_EQ(info.at("Mtu"), 1024);
  EXPECT_EQ(info.at("Link_type"), "Ethernet");
  EXPECT_EQ(info.at("GID_index"), 1);
  EXPECT_EQ(info.at("Max_inline_data"), 0);
  EXPECT_FALSE(info.contains("Outstand_reads"));
  EXPECT_EQ(info.at("Dual_port"), "OFF");
  EXPECT_EQ(info.at("Using_SRQ"), "OFF");
  EXPECT_EQ(info.at("PCIe_relax_order"), "OFF");
  EXPECT_EQ(info.at("ibv_wr_API"), "OFF");
  EXPECT_EQ(info.at("rdma_cm_QPs"), "OFF");
  EXPECT_EQ(info.at("Data_ex_method"), "Ethernet");

  const json& local = info.at("local_address");
  ASSERT_TRUE(local.is_array());
  ASSERT_EQ(local.size(), 2u);
  EXPECT_EQ(local[1].at("LID"), 0);
  EXPECT_EQ(local[1].at("QPN"), 0x12);
  EXPECT_EQ(local[1].at("PSN"), 0x1b2c3d);
  EXPECT_EQ(local[1].at("RKey"), 0x123d);
  EXPECT_EQ(local[1].at("VAddr"), uint64_t{0x7f3a5c010000});
  EXPECT_EQ(local[1].at("GID"),
            "00:00:00:00:00:00:00:00:00:00:255:255:10:00:00:05");
  EXPECT_FALSE(local[1].contains("OUT"));  // WRITE
  const json& remote = info.at("remote_address");
  ASSERT_EQ(remote.size(), 2u);
  EXPECT_EQ(remote[0].at("QPN"), 0x21);
  EXPECT_EQ(remote[0].at("GID"),
            "00:00:00:00:00:00:00:00:00:00:255:255:10:00:00:04");
}

TEST(VerbsJson, ReadShowsOutstandReadsAndSendHasNoKeysOrGid) {
  const json read = JsonTestInfo(ReadBwWithOutReads());
  EXPECT_EQ(read.at("Outstand_reads"), 16);
  EXPECT_FALSE(read.contains("Max_inline_data"));
  EXPECT_FALSE(read.contains("GID_index"));  // no GRH
  EXPECT_EQ(read.at("local_address")[0].at("OUT"), 16);
  EXPECT_EQ(read.at("local_address")[0].at("VAddr"),
            uint64_t{0x7f760c947000});
  EXPECT_FALSE(read.at("local_address")[0].contains("GID"));

  const json send = JsonTestInfo(SendLatUdWithoutGid());
  EXPECT_EQ(send.at("Connection_type"), "UD");
  EXPECT_EQ(send.at("Max_inline_data"), 236);
  const json& qp = send.at("remote_address")[0];
  EXPECT_EQ(qp.at("LID"), 0x1b);
  EXPECT_EQ(qp.at("PSN"), 0xabcdef);
  EXPECT_FALSE(qp.contains("RKey"));
  EXPECT_FALSE(qp.contains("VAddr"));
  EXPECT_FALSE(qp.contains("OUT"));
}

TEST(VerbsJson, EngineRunsKeepTheirKeys) {
  TestInfo info;
  info.transport = "shm";
  const json out = JsonTestInfo(info);
  EXPECT_FALSE(out.contains("Device"));
  EXPECT_FALSE(out.contains("local_address"));
  EXPECT_FALSE(out.contains("Mtu"));
}

TEST(VerbsJson, AtomicTestName) {
  TestInfo info = ReadBwWithOutReads();
  info.verb = bench::Verb::kAtomic;
  info.kind = bench::Kind::kLatency;
  EXPECT_EQ(JsonTestInfo(info).at("test"), "Atomic_FETCH_AND_ADD_Latency_Test");
}

}  // namespace
}  // namespace xfer::report
