#include "cli/flags.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "cli/parse_test_util.h"

namespace xfer::cli {
namespace {

using bench::Kind;
using bench::Role;
using bench::Verb;
using testing_util::HasNoteContaining;
using testing_util::Parse;
using testing_util::ParseRun;
using testing_util::ParseWords;

// ---------------------------------------------------------------------------
// Per-test defaults (perftest §2.3), as a client so no role rule interferes.

struct DefaultsCase {
  const char* test;
  Verb verb;
  Kind kind;
  uint64_t size;
  uint64_t iterations;
  uint32_t tx_depth;
  uint32_t cq_mod;  // 1 for BW: the 65536 default is above 8192
  uint32_t rx_depth;
};

// Names the case in test output and ctest.
void PrintTo(const DefaultsCase& c, std::ostream* os) { *os << c.test; }

class DefaultsTest : public testing::TestWithParam<DefaultsCase> {};

TEST_P(DefaultsTest, MatchPerftest) {
  const DefaultsCase& c = GetParam();
  const bench::BenchParams p = ParseRun(std::string(c.test) + " host");
  EXPECT_EQ(p.verb, c.verb);
  EXPECT_EQ(p.kind, c.kind);
  EXPECT_EQ(p.size, c.size);
  EXPECT_EQ(p.iterations, c.iterations);
  EXPECT_EQ(p.tx_depth, c.tx_depth);
  EXPECT_EQ(p.cq_mod, c.cq_mod);
  EXPECT_EQ(p.rx_depth, c.rx_depth);
  EXPECT_EQ(p.port, 18515);
  EXPECT_EQ(p.qps, 1u);
  EXPECT_EQ(p.post_list, 1u);
  EXPECT_EQ(p.timeout, std::chrono::milliseconds(10000));
  EXPECT_EQ(p.accept_timeout, std::chrono::milliseconds(600000));
  EXPECT_FALSE(p.cq_mod_given);
  EXPECT_EQ(p.duration_s, 0);
  EXPECT_FALSE(p.all_sizes);
  EXPECT_FALSE(p.no_peak);
  EXPECT_EQ(p.units, bench::BwUnits::kMiBps);
  EXPECT_TRUE(p.transport.empty());
  EXPECT_TRUE(p.notes.empty());
}

INSTANTIATE_TEST_SUITE_P(
    AllTests, DefaultsTest,
    testing::Values(DefaultsCase{"write_bw", Verb::kWrite, Kind::kBandwidth,
                                 65536, 5000, 128, 1, 1},
                    DefaultsCase{"read_bw", Verb::kRead, Kind::kBandwidth,
                                 65536, 1000, 128, 1, 1},
                    DefaultsCase{"send_bw", Verb::kSend, Kind::kBandwidth,
                                 65536, 1000, 128, 1, 512},
                    DefaultsCase{"write_lat", Verb::kWrite, Kind::kLatency, 2,
                                 1000, 1, 1, 1},
                    DefaultsCase{"read_lat", Verb::kRead, Kind::kLatency, 2,
                                 1000, 1, 1, 1},
                    DefaultsCase{"send_lat", Verb::kSend, Kind::kLatency, 2,
                                 1000, 1, 1, 512}),
    [](const auto& test_info) { return std::string(test_info.param.test); });

TEST(FlagsTest, PerftestToolNamesAreAccepted) {
  const bench::BenchParams p = ParseRun("ib_read_lat host");
  EXPECT_EQ(p.verb, Verb::kRead);
  EXPECT_EQ(p.kind, Kind::kLatency);
}

// ---------------------------------------------------------------------------
// Values: perftest reads numbers with strtol(..., 0) and -s with K/M.

struct ValueCase {
  const char* command;
  uint64_t size;
  uint64_t iterations;
  uint16_t port;
};

// Names the case in test output and ctest.
void PrintTo(const ValueCase& c, std::ostream* os) { *os << c.command; }

class ValueTest : public testing::TestWithParam<ValueCase> {};

TEST_P(ValueTest, Parses) {
  const bench::BenchParams p = ParseRun(GetParam().command);
  EXPECT_EQ(p.size, GetParam().size);
  EXPECT_EQ(p.iterations, GetParam().iterations);
  EXPECT_EQ(p.port, GetParam().port);
}

INSTANTIATE_TEST_SUITE_P(
    Numbers, ValueTest,
    testing::Values(
        ValueCase{"write_bw -s 64K h", 65536, 5000, 18515},
        ValueCase{"write_bw -s 2M h", 2097152, 5000, 18515},
        ValueCase{"write_bw -s 0x10 h", 16, 5000, 18515},
        ValueCase{"write_bw -s 010 h", 8, 5000, 18515},
        ValueCase{"write_bw -n 0x20 h", 65536, 32, 18515},
        ValueCase{"write_bw -p 0x50 h", 65536, 5000, 80},
        ValueCase{"write_bw --size=4096 --iters=100 h", 4096, 100, 18515},
        ValueCase{"write_bw -s4096 -n100 -p9000 h", 4096, 100, 9000},
        // Issue 9, defect 13: --loopback listens on -p when given, else on
        // a free port (0).
        ValueCase{"write_bw --loopback -p 80", 65536, 5000, 80},
        ValueCase{"write_bw --loopback", 65536, 5000, 0},
        ValueCase{"write_bw", 65536, 5000, 18515}));

TEST(FlagsTest, SetsEveryOtherImplementedField) {
  const bench::BenchParams p = ParseRun(
      "write_bw -q 4 -F --report_gbits --use_hugepages --json out.json "
      "--transport tcp --timeout 2.5 --accept_timeout 30 -N -t 64 --perform_warm_up h");
  EXPECT_EQ(p.qps, 4u);
  EXPECT_TRUE(p.cpu_freq_warning_off);
  EXPECT_EQ(p.units, bench::BwUnits::kGbps);
  EXPECT_TRUE(p.use_hugepages);
  EXPECT_TRUE(p.perform_warm_up);
  EXPECT_EQ(p.json_path, "out.json");
  EXPECT_EQ(p.transport, "tcp");
  EXPECT_EQ(p.timeout, std::chrono::milliseconds(2500));
  EXPECT_EQ(p.accept_timeout, std::chrono::milliseconds(30000));
  EXPECT_TRUE(p.no_peak);
  EXPECT_EQ(p.tx_depth, 64u);
}

// perftest's -H and -U (its long -H is misspelled "histogrm"; the help's
// spelling is taken too), on every latency test.
TEST(FlagsTest, HistogramFlagsAskForTheSampleLists) {
  // (atomic_lat takes them too, on a host with verbs: verbs_flags_test.cc.)
  for (const char* test : {"write_lat", "read_lat", "send_lat"}) {
    const bench::BenchParams p = ParseRun(std::string(test) + " -H -U h");
    EXPECT_TRUE(p.report_histogram) << test;
    EXPECT_TRUE(p.report_unsorted) << test;
  }
  EXPECT_TRUE(ParseRun("write_lat --report-histogrm h").report_histogram);
  EXPECT_TRUE(ParseRun("write_lat --report-histogram h").report_histogram);
  EXPECT_TRUE(ParseRun("write_lat --report-unsorted h").report_unsorted);
  EXPECT_TRUE(ParseRun("read_lat -C h").report_cycles);
  EXPECT_TRUE(ParseRun("send_lat --report-cycles h").report_cycles);
  EXPECT_FALSE(ParseRun("write_lat h").report_histogram);
}

// perftest 26.04's NUMA flags, on every test.
TEST(FlagsTest, NumaFlagsChooseWhereTheProcessRuns) {
  EXPECT_EQ(ParseRun("write_bw --pin_cores 0-3,8,12-15 h").pin_cores,
            (std::vector<int>{0, 1, 2, 3, 8, 12, 13, 14, 15}));
  EXPECT_EQ(ParseRun("send_lat --pin_cores=2 h").pin_cores, (std::vector<int>{2}));
  EXPECT_EQ(ParseRun("read_bw --numa_node 1 h").numa_node, 1);
  EXPECT_TRUE(ParseRun("write_lat --disable_numa h").disable_numa);
  const bench::BenchParams plain = ParseRun("write_bw h");
  EXPECT_TRUE(plain.pin_cores.empty());
  EXPECT_EQ(plain.numa_node, -1);
  EXPECT_FALSE(plain.disable_numa);
}

TEST(FlagsTest, TinyTimeoutRoundsUpToOneMillisecond) {
  EXPECT_EQ(ParseRun("write_bw --timeout 0.0001 h").timeout,
            std::chrono::milliseconds(1));
}

TEST(FlagsTest, AllSizesSweepsTwoToEightMiB) {
  const bench::BenchParams p = ParseRun("write_bw -a h");
  EXPECT_TRUE(p.all_sizes);
  const std::vector<uint64_t> sizes = p.Sizes();
  ASSERT_EQ(sizes.size(), 23u);
  EXPECT_EQ(sizes.front(), 2u);
  EXPECT_EQ(sizes.back(), 8388608u);
}

TEST(FlagsTest, TransportListComesFromConfig) {
  ParserConfig config;
  config.transports = {"tcp", "verbs"};
  config.perftest_transport = "verbs";
  EXPECT_EQ(ParseRun("write_bw --transport verbs h", config).transport,
            "verbs");
  Result<ParsedCommand> shm = Parse("write_bw --transport shm h", config);
  ASSERT_FALSE(shm.ok());
  EXPECT_NE(shm.status().message().find("known: tcp, verbs"),
            std::string::npos);
}

// Issue 29, §4: stock perftest's --use_cuda_dmabuf registers the device
// buffer with the NIC, so it runs on perftest's wire, over verbs.
TEST(FlagsTest, UseCudaDmabufRunsOnPerftestsWireOverVerbs) {
  ParserConfig config;
  config.transports = {"shm", "tcp", "verbs"};
  config.perftest_transport = "verbs";
  const bench::BenchParams p = ParseRun("write_bw --use_cuda=0 --use_cuda_dmabuf h", config);
  EXPECT_TRUE(p.cuda_dmabuf);
  EXPECT_EQ(p.transport, "verbs");
  EXPECT_EQ(p.wire, bench::Wire::kPerftest);
  Result<ParsedCommand> xfer_wire =
      Parse("read_bw --use_cuda=0 --use_cuda_dmabuf --wire xfer h", config);
  ASSERT_FALSE(xfer_wire.ok());
  EXPECT_NE(xfer_wire.status().message().find("--wire xfer moves device memory its own way"),
            std::string::npos)
      << xfer_wire.status().ToString();
}

// ---------------------------------------------------------------------------
// Roles.

struct RoleCase {
  const char* command;
  Role role;
  const char* host;
};

// Names the case in test output and ctest.
void PrintTo(const RoleCase& c, std::ostream* os) { *os << c.command; }

class RoleTest : public testing::TestWithParam<RoleCase> {};

TEST_P(RoleTest, ClientIffHost) {
  const bench::BenchParams p = ParseRun(GetParam().command);
  EXPECT_EQ(p.role, GetParam().role);
  EXPECT_EQ(p.server_host, GetParam().host);
}

INSTANTIATE_TEST_SUITE_P(
    Roles, RoleTest,
    testing::Values(RoleCase{"write_bw", Role::kServer, ""},
                    RoleCase{"write_bw 10.0.0.1", Role::kClient, "10.0.0.1"},
                    RoleCase{"write_bw -s 64 node7 -n 10", Role::kClient,
                             "node7"},
                    RoleCase{"write_bw --loopback", Role::kLoopback, ""},
                    RoleCase{"send_lat -- peer", Role::kClient, "peer"}));

// ---------------------------------------------------------------------------
// Usage errors: every one is kInvalidArgument and names the flag.

struct ErrorCase {
  const char* command;
  const char* message_part;
};

// Names the case in test output and ctest.
void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.command; }

class UsageErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(UsageErrorTest, IsInvalidArgumentNamingTheProblem) {
  Result<ParsedCommand> parsed = Parse(GetParam().command);
  ASSERT_FALSE(parsed.ok()) << GetParam().command;
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(parsed.status().message().find(GetParam().message_part),
            std::string::npos)
      << GetParam().command << " -> " << parsed.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Commands, UsageErrorTest,
    testing::Values(
        ErrorCase{"", "missing <test>"},
        ErrorCase{"", "or one of devices, matrix, doctor, report, compare"},
        ErrorCase{"-s 5 write_bw", "expected a test name"},
        ErrorCase{"foo_bw", "unknown test 'foo_bw'"},
        // Issue 27, defect 13: an unknown name lists every command too.
        ErrorCase{"foo_bw", "a test (write_bw, "},
        ErrorCase{"foo_bw", "or one of devices, matrix, doctor, report, compare"},
        ErrorCase{"write_bw --bogus", "unknown option '--bogus'"},
        ErrorCase{"write_bw -H h", "-H/--report-histogrm: only for latency tests"},
        ErrorCase{"write_bw --numa_node 0 --pin_cores 1 h",
                  "--numa_node and --pin_cores cannot be used together"},
        ErrorCase{"write_bw --disable_numa --numa_node 0 h", "--disable_numa and --numa_node"},
        ErrorCase{"write_bw --pin_cores 3-1 h", "--pin_cores: '3-1' ends below where it starts"},
        ErrorCase{"write_bw --pin_cores x h", "--pin_cores: 'x' is no CPU number or range"},
        ErrorCase{"write_bw --numa_node -1 h", "--numa_node"},
        ErrorCase{"send_bw -U h", "only for latency tests"},
        ErrorCase{"write_lat -H -D 4 h",
                  "-H/--report-histogrm: duration mode (-D) keeps no samples to report"},
        ErrorCase{"read_lat -U -D 4 h", "-U/--report-unsorted: duration mode (-D)"},
        ErrorCase{"write_lat -C -D 4 h", "-C/--report-cycles: duration mode (-D)"},
        ErrorCase{"write_bw -C h", "-C/--report-cycles: only for latency tests"},
        ErrorCase{"write_bw -Z", "unknown option '-Z'"},
        ErrorCase{"write_bw -s abc", "-s/--size: 'abc' is not a number"},
        ErrorCase{"write_bw -s 0", "-s/--size: 0 is out of range"},
        ErrorCase{"write_bw -s 3G", "-s/--size: 3G is out of range 1..2147483647"},
        ErrorCase{"write_bw -s 1T", "-s/--size: '1T': unknown size suffix 'T' (use K, M or G)"},
        ErrorCase{"write_bw -s 2048M", "-s/--size: 2048M is out of range"},
        ErrorCase{"write_bw -s", "-s/--size: missing value"},
        ErrorCase{"write_bw --transport", "--transport: missing value"},
        ErrorCase{"write_bw -n 4", "-n/--iters: 4 is out of range 5.."},
        ErrorCase{"write_bw -t 0", "-t/--tx-depth"},
        ErrorCase{"write_bw -t 15001", "-t/--tx-depth"},
        ErrorCase{"write_bw -Q 1025", "-Q/--cq-mod"},
        ErrorCase{"write_bw -q 65", "-q/--qp: 65 is out of range 1..64"},
        ErrorCase{"write_bw -p 0", "-p/--port"},
        ErrorCase{"write_bw -p 65536", "-p/--port"},
        ErrorCase{"write_bw -D 0", "-D/--duration"},
        ErrorCase{"write_bw -D 1.5", "-D/--duration: '1.5' is not an integer"},
        ErrorCase{"write_bw -D 5 -f -1", "-f/--margin"},
        ErrorCase{"write_bw -D 4 -f 2", "-f/--margin"},
        ErrorCase{"write_bw --timeout 0", "--timeout"},
        ErrorCase{"write_bw --timeout abc", "--timeout: 'abc' is not a number"},
        ErrorCase{"write_bw --accept_timeout -1", "--accept_timeout"},
        ErrorCase{"write_bw --json=", "--json: missing value"},
        ErrorCase{"write_bw --transport rdma",
                  "--transport: unknown transport"},
        ErrorCase{"write_bw -a -D 5", "-a/--all cannot be combined with -D"},
        ErrorCase{"write_lat -q 2", "-q/--qp: only for bandwidth tests"},
        ErrorCase{"write_lat -b", "-b/--bidirectional: only for bandwidth"},
        ErrorCase{"send_bw -b",
                  "-b/--bidirectional: send_bw runs bidirectional on RDMA verbs only"},
        ErrorCase{"write_bw -e", "-e/--events: perftest flag not supported by xfer yet"},
        ErrorCase{"write_lat -N", "-N/--noPeak: only for bandwidth tests"},
        ErrorCase{"send_lat -l 2", "-l/--post_list: only for bandwidth"},
        ErrorCase{"write_bw -r 8", "-r/--rx-depth"},
        ErrorCase{"write_bw --loopback host1", "--loopback cannot be combined"},
        ErrorCase{"write_bw h1 h2", "unexpected argument 'h2'"},
        ErrorCase{"write_bw -s 64 -s 128", "-s/--size: Duplicated argument"},
        ErrorCase{"write_bw -a -a", "-a/--all: Duplicated argument"},
        ErrorCase{"write_bw --com_rdma_cm",
                  "-z/--comm_rdma_cm: perftest flag not supported by xfer yet"},
        ErrorCase{"write_bw --all=false", "-a/--all: takes no value"},
        ErrorCase{"write_bw -e", "-e/--events: perftest flag not"},
        ErrorCase{"write_bw --out_json", "use --json"},
        ErrorCase{"write_bw -o 4", "-o/--outs: only for read tests"},
        ErrorCase{"read_bw -I 64", "-I/--inline_size: not available in read"},
        ErrorCase{"write_bw -m 1000", "-m/--mtu: 1000 is not an IB MTU"},
        ErrorCase{"write_bw -c XX", "-c/--connection: invalid connection"},
        ErrorCase{"write_bw -c UD", "-c/--connection: UD connection is only"},
        ErrorCase{"read_bw -c UC", "-c/--connection: UC connection is not"},
        ErrorCase{"write_bw -x 65", "-x/--gid-index"},
        ErrorCase{"write_bw -S 16", "-S/--sl"},
        ErrorCase{"write_bw -u 32", "-u/--qp-timeout"},
        ErrorCase{"write_bw -i 0", "-i/--ib-port"},
        ErrorCase{"write_bw -T 3", "-T/--tos: perftest flag not supported by xfer yet"},
        ErrorCase{"write_bw --force-link IB", "--force-link: perftest flag not supported"},
        ErrorCase{"write_bw --use-srq", "--use-srq: only for send tests"},
        ErrorCase{"write_lat --use_cuda=0", "--use_cuda: only for write_bw and read_bw"},
        ErrorCase{"send_bw --use_cuda=0", "--use_cuda: only for write_bw and read_bw"},
        ErrorCase{"write_bw --use_cuda=-1", "--use_cuda"},
        ErrorCase{"write_bw --use_cuda=gpu0", "--use_cuda: 'gpu0' is not a number"},
        ErrorCase{"read_bw --use_cuda_bus_id=", "--use_cuda_bus_id"},
        ErrorCase{"write_bw --use_cuda=0 --use_cuda_bus_id=0000:19:00.0",
                  "--use_cuda and --use_cuda_bus_id both choose the GPU"},
        ErrorCase{"write_bw --use_cuda_dmabuf",
                  "--use_cuda_dmabuf registers a CUDA buffer: choose the GPU with --use_cuda"},
        ErrorCase{"write_lat --use_cuda_dmabuf --use_cuda=0",
                  "--use_cuda_dmabuf: only for write_bw and read_bw"},
        ErrorCase{"write_bw --use_cuda=0 --use_cuda_dmabuf --transport tcp",
                  "--use_cuda_dmabuf registers memory with"}));

TEST(FlagsTest, CudaFlagsChooseTheGpuByOrdinalOrByPcieAddress) {
  const bench::BenchParams by_ordinal = ParseRun("write_bw --use_cuda=3 h");
  ASSERT_TRUE(by_ordinal.cuda_device.has_value());
  EXPECT_EQ(*by_ordinal.cuda_device, 3);
  EXPECT_TRUE(by_ordinal.cuda_bus_id.empty());
  const bench::BenchParams by_address = ParseRun("read_bw --use_cuda_bus_id 0000:19:00.0 h");
  EXPECT_FALSE(by_address.cuda_device.has_value());
  EXPECT_EQ(by_address.cuda_bus_id, "0000:19:00.0");
  EXPECT_FALSE(ParseRun("write_bw h").cuda_device.has_value());
}

TEST(FlagsTest, EmptyHostIsRejected) {
  Result<ParsedCommand> parsed = ParseWords({"write_bw", ""});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(), "<host>: '' is not a host name");
}

TEST(FlagsTest, EmptyJsonPathIsRejected) {
  Result<ParsedCommand> parsed = ParseWords({"write_bw", "--json", ""});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(), "--json: empty file name");
}

TEST(FlagsTest, ErrorsInCommandLineOrderReportTheFirstBadFlag) {
  Result<ParsedCommand> parsed = Parse("write_bw -n 1 -s abc");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("-n/--iters"), std::string::npos);
}

// Issue 27, defect 12: a usage error points to the help of the command
// that was typed.
TEST(FlagsTest, UsageErrorsPointToTheCommandsOwnHelp) {
  auto help_for = [](std::vector<const char*> argv) {
    return HelpCommandFor(static_cast<int>(argv.size()), argv.data());
  };
  EXPECT_EQ(help_for({"xfer", "matrix", "--loops", "x"}), "xfer matrix --help");
  EXPECT_EQ(help_for({"xfer", "report"}), "xfer report --help");
  EXPECT_EQ(help_for({"xfer", "write_bw", "-s", "abc"}), "xfer write_bw --help");
  EXPECT_EQ(help_for({"xfer", "bogus"}), "xfer --help");
  EXPECT_EQ(help_for({"xfer", "-s", "5"}), "xfer --help");
  EXPECT_EQ(help_for({"xfer"}), "xfer --help");
}

}  // namespace
}  // namespace xfer::cli
