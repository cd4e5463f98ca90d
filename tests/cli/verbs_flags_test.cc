// RDMA verbs flags into BenchParams::verbs, the transport rule (flags.h),
// the atomic tests and perftest's per-verb connection rules.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "cli/parse_test_util.h"

namespace xfer::cli {
namespace {

using bench::AtomicType;
using bench::Connection;
using bench::Kind;
using bench::Verb;
using testing_util::HasNoteContaining;
using testing_util::Parse;
using testing_util::ParseRun;

ParserConfig WithVerbs() {
  ParserConfig config;
  config.transports = {"shm", "tcp", "verbs"};
  config.perftest_transport = "verbs";
  return config;
}

std::string ErrorOf(const std::string& command, const ParserConfig& config) {
  Result<ParsedCommand> parsed = Parse(command, config);
  EXPECT_FALSE(parsed.ok()) << command;
  if (parsed.ok()) return "";
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << command;
  return parsed.status().message();
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ---------------------------------------------------------------------------
// Every verbs flag lands in VerbsParams.

TEST(VerbsFlags, EveryHonouredFlagLandsInVerbsParams) {
  const bench::BenchParams p = ParseRun(
      "write_bw -d rxe0 -i 2 -x 3 -m 1024 -c UC -I 64 -S 5 -u 20 --ipv6 "
      "--tclass 7 --pkey_index 0x10 h",
      WithVerbs());
  const bench::VerbsParams& v = p.verbs;
  EXPECT_EQ(v.device, "rxe0");
  EXPECT_EQ(v.ib_port, 2);
  ASSERT_TRUE(v.gid_index.has_value());
  EXPECT_EQ(*v.gid_index, 3);
  ASSERT_TRUE(v.mtu.has_value());
  EXPECT_EQ(*v.mtu, 1024u);
  EXPECT_EQ(v.connection, Connection::kUC);
  ASSERT_TRUE(v.inline_size.has_value());
  EXPECT_EQ(*v.inline_size, 64u);
  EXPECT_EQ(v.sl, 5);
  EXPECT_EQ(v.qp_timeout, 20);
  EXPECT_TRUE(v.prefer_ipv6);
  EXPECT_EQ(v.traffic_class, 7);
  EXPECT_EQ(v.pkey_index, 16);  // strtol(..., 0), as perftest
  EXPECT_EQ(v.typed,
            (std::vector<std::string>{"-d rxe0", "-i 2", "-x 3", "-m 1024",
                                      "-c UC", "-I 64", "-S 5", "-u 20",
                                      "--ipv6", "--tclass 7",
                                      "--pkey_index 0x10"}));
  EXPECT_EQ(p.transport, "verbs");
  EXPECT_TRUE(p.notes.empty()) << p.notes.front();
}

TEST(VerbsFlags, DefaultsMeanPerftestDefaults) {
  for (const char* command : {"write_bw h", "read_lat h", "send_bw h"}) {
    const bench::VerbsParams v = ParseRun(command, WithVerbs()).verbs;
    EXPECT_EQ(v.device, "") << command;
    EXPECT_EQ(v.ib_port, 1);
    EXPECT_FALSE(v.gid_index.has_value());
    EXPECT_FALSE(v.mtu.has_value());
    EXPECT_EQ(v.connection, Connection::kRC);
    EXPECT_FALSE(v.inline_size.has_value());
    EXPECT_FALSE(v.out_reads.has_value());
    EXPECT_EQ(v.sl, 0);
    EXPECT_EQ(v.qp_timeout, 14);
    EXPECT_EQ(v.atomic_type, AtomicType::kFetchAndAdd);
    EXPECT_FALSE(v.prefer_ipv6);
    EXPECT_TRUE(v.typed.empty());
  }
}

TEST(VerbsFlags, OutstandingReadsInReadAndAtomicTests) {
  const bench::BenchParams read = ParseRun("read_bw -o 16 h", WithVerbs());
  ASSERT_TRUE(read.verbs.out_reads.has_value());
  EXPECT_EQ(*read.verbs.out_reads, 16u);
  EXPECT_EQ(read.verbs.typed, std::vector<std::string>{"-o 16"});

  const bench::BenchParams device_max =
      ParseRun("read_lat -o 0 h", WithVerbs());
  ASSERT_TRUE(device_max.verbs.out_reads.has_value());
  EXPECT_EQ(*device_max.verbs.out_reads, 0u);  // 0 = the device maximum

  const bench::BenchParams atomic = ParseRun("atomic_bw -o 4 h", WithVerbs());
  ASSERT_TRUE(atomic.verbs.out_reads.has_value());
  EXPECT_EQ(*atomic.verbs.out_reads, 4u);
  EXPECT_EQ(*ParseRun("atomic_lat -o 2 h", WithVerbs()).verbs.out_reads, 2u);

  EXPECT_TRUE(Contains(ErrorOf("send_bw -o 4 h", WithVerbs()),
                       "-o/--outs: only for read tests or atomic tests"));
}

// Issue 9, defect 6: verbs flags no transport implements are refused at
// parse time on every transport, instead of failing a verbs run after it
// forked or being ignored by shm and tcp.
TEST(VerbsFlags, NotImplementedVerbsFlagsAreRefusedOnEveryTransport) {
  struct Refusal {
    const char* args;
    const char* message;
  };
  for (const Refusal& refusal :
       {Refusal{"write_bw -R", "-R/--rdma_cm: perftest flag not supported by xfer yet"},
        Refusal{"write_bw -z", "-z/--comm_rdma_cm: perftest flag not supported by xfer yet"},
        Refusal{"write_bw --odp", "--odp: perftest flag not supported by xfer yet"},
        Refusal{"write_bw -T 3", "-T/--tos: perftest flag not supported by xfer yet"},
        Refusal{"write_bw --mr_per_qp", "--mr_per_qp: perftest flag not supported by xfer yet"},
        Refusal{"write_bw --force-link IB",
                "--force-link: perftest flag not supported by xfer yet"},
        Refusal{"send_bw --use-srq", "--use-srq: perftest flag not supported by xfer yet"}}) {
    for (const char* where : {" h", " --loopback", " --transport tcp h", " --transport shm h",
                              " --transport verbs h"}) {
      const std::string command = std::string(refusal.args) + where;
      EXPECT_EQ(ErrorOf(command, WithVerbs()), refusal.message) << command;
    }
  }
}

// ---------------------------------------------------------------------------
// The transport rule.

struct TransportCase {
  const char* command;
  bool verbs_offered;
  const char* transport;  // params.transport afterwards
  const char* note;       // a note that must be present, or "" for no notes
};

void PrintTo(const TransportCase& c, std::ostream* os) {
  *os << c.command << (c.verbs_offered ? " [verbs]" : " [shm,tcp]");
}

class TransportRuleTest : public testing::TestWithParam<TransportCase> {};

TEST_P(TransportRuleTest, SelectsAndNotes) {
  const TransportCase& c = GetParam();
  const bench::BenchParams p =
      ParseRun(c.command, c.verbs_offered ? WithVerbs() : ParserConfig{});
  EXPECT_EQ(p.transport, c.transport);
  if (std::string(c.note).empty()) {
    EXPECT_TRUE(p.notes.empty()) << p.notes.front();
  } else {
    EXPECT_TRUE(HasNoteContaining(p, c.note))
        << (p.notes.empty() ? "(no notes)" : p.notes.front());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TransportRuleTest,
    testing::Values(
        // verbs offered: a verbs flag or an atomic test selects it.
        TransportCase{"write_bw h", true, "", ""},
        TransportCase{"write_bw -s 4096 -q 2 h", true, "", ""},
        TransportCase{"write_bw -d rxe0 h", true, "verbs", ""},
        TransportCase{"write_bw -c RC h", true, "verbs", ""},
        TransportCase{"send_bw -c UD h", true, "verbs", ""},
        TransportCase{"read_bw -o 8 h", true, "verbs", ""},
        TransportCase{"write_bw --ipv6 h", true, "verbs", ""},
        TransportCase{"atomic_bw h", true, "verbs", ""},
        TransportCase{"atomic_lat h", true, "verbs", ""},
        TransportCase{"write_bw --transport verbs h", true, "verbs", ""},
        TransportCase{"send_lat --transport verbs -c UD h", true, "verbs", ""},
        // verbs offered but another transport typed: notes, as before.
        TransportCase{"write_bw -d rxe0 --transport tcp h", true, "tcp",
                      "-d rxe0: RDMA verbs flag; transport tcp has no verbs "
                      "device, ignored"},
        TransportCase{"send_bw --transport shm -c UD h", true, "shm",
                      "-c UD: transport shm has reliable connected (RC) "
                      "semantics only; connection type ignored"},
        TransportCase{"write_bw --transport shm h", true, "shm", ""},
        // verbs not offered (the default config): nothing selects it.
        TransportCase{"write_bw -d rxe0 h", false, "",
                      "-d rxe0: RDMA verbs flag; transports shm and tcp have "
                      "no verbs device, ignored"},
        TransportCase{"write_bw -c UC h", false, "",
                      "-c UC: transports shm and tcp have reliable connected"},
        TransportCase{"write_bw -c RC h", false, "", ""},
        TransportCase{"read_bw -o 8 --transport tcp h", false, "tcp",
                      "-o 8: RDMA verbs flag; transport tcp has no verbs "
                      "device, ignored"}));

TEST(TransportRule, VerbsFieldsAreFilledWhateverTheTransport) {
  const bench::BenchParams p = ParseRun("write_bw -d mlx5_0 -x 2 h", {});
  EXPECT_EQ(p.transport, "");
  EXPECT_EQ(p.verbs.device, "mlx5_0");
  EXPECT_EQ(*p.verbs.gid_index, 2);
  EXPECT_EQ(p.notes.size(), 2u);
}

TEST(TransportRule, VerbsNeedsToBeOfferedToBeTyped) {
  EXPECT_TRUE(Contains(ErrorOf("write_bw --transport verbs h", {}),
                       "--transport: unknown transport 'verbs'"));
}

TEST(TransportRule, AtomicTestsRefuseOtherTransports) {
  const std::string tcp = ErrorOf("atomic_bw --transport tcp h", WithVerbs());
  EXPECT_TRUE(Contains(tcp, "--transport tcp")) << tcp;
  EXPECT_TRUE(Contains(tcp, "atomic_bw runs on RDMA verbs only")) << tcp;
  EXPECT_TRUE(Contains(ErrorOf("atomic_lat --transport shm h", WithVerbs()),
                       "--transport shm"));
  const std::string none = ErrorOf("atomic_lat h", {});
  EXPECT_TRUE(Contains(none, "atomic_lat needs the RDMA verbs transport"))
      << none;
  EXPECT_TRUE(Contains(ErrorOf("atomic_bw --transport tcp h", {}),
                       "--transport tcp"));
}

// Issue 9, defect 6: on a host without an RDMA device, a run that needs
// verbs is refused at parse time (main exits 2 before it forks or connects),
// naming what asked for verbs; runs the engine can carry still parse, and
// the host is not asked about them.
TEST(TransportRule, RunsThatNeedVerbsAreRefusedOnAHostWithoutRdma) {
  int asked = 0;
  ParserConfig config = WithVerbs();
  config.host_has_rdma_device = [&asked] {
    ++asked;
    return false;
  };
  const std::string kNoDevice = "this host has no RDMA device (see 'xfer devices')";
  EXPECT_EQ(ErrorOf("atomic_bw --loopback", config),
            "atomic_bw runs on RDMA verbs only, and " + kNoDevice);
  EXPECT_EQ(ErrorOf("atomic_lat h", config),
            "atomic_lat runs on RDMA verbs only, and " + kNoDevice);
  EXPECT_EQ(ErrorOf("send_bw -b --loopback", config),
            "-b/--bidirectional: send_bw runs bidirectional on RDMA verbs only, and " +
                kNoDevice);
  EXPECT_EQ(ErrorOf("write_bw --transport verbs --loopback", config),
            "--transport verbs: " + kNoDevice);
  EXPECT_EQ(ErrorOf("atomic_bw --transport verbs h", config), "--transport verbs: " + kNoDevice);
  EXPECT_EQ(ErrorOf("write_bw -d rxe0 --loopback", config),
            "-d rxe0: RDMA verbs flag, which selects the verbs transport, and " + kNoDevice);
  EXPECT_EQ(asked, 6);

  asked = 0;
  EXPECT_EQ(ParseRun("write_bw --loopback", config).transport, "");
  EXPECT_EQ(ParseRun("send_bw -b --transport verbs h", WithVerbs()).transport, "verbs");
  EXPECT_EQ(ParseRun("write_bw -d rxe0 --transport tcp h", config).transport, "tcp");
  EXPECT_EQ(asked, 0);
}

// Issue 43, item 24: the note that a stock perftest peer cannot join is for
// a run that could have been on perftest's wire: verbs named, or a host
// that has an RDMA device. Where there is none, no such peer ever could.
TEST(TransportRule, ThePerftestPeerNoteNeedsAHostWithRdma) {
  int asked = 0;
  ParserConfig none = WithVerbs();
  none.host_has_rdma_device = [&asked] {
    ++asked;
    return false;
  };
  for (const char* line : {"write_lat --notify --loopback", "write_bw --prepared --loopback",
                           "write_bw --device_path staged --loopback"}) {
    const bench::BenchParams p = ParseRun(line, none);
    EXPECT_EQ(p.wire, bench::Wire::kXfer) << line;
    EXPECT_TRUE(p.notes.empty()) << line << ": " << p.notes.front();
  }
  EXPECT_EQ(asked, 3) << "once per command line";
  ParserConfig some = WithVerbs();
  some.host_has_rdma_device = [] { return true; };
  const bench::BenchParams with = ParseRun("write_lat --notify --loopback", some);
  ASSERT_EQ(with.notes.size(), 1u);
  EXPECT_NE(with.notes.front().find("a stock perftest peer cannot join"), std::string::npos);
  EXPECT_FALSE(ParseRun("write_lat --notify --transport verbs h", WithVerbs()).notes.empty())
      << "verbs named: the note whatever the host";
}

TEST(TransportRule, RunsThatNeedVerbsParseOnAHostWithRdma) {
  ParserConfig config = WithVerbs();
  config.host_has_rdma_device = [] { return true; };
  EXPECT_EQ(ParseRun("atomic_bw --loopback", config).transport, "verbs");
  EXPECT_TRUE(ParseRun("send_bw -b --loopback", config).bidirectional);
  EXPECT_EQ(ParseRun("write_bw -d rxe0 h", config).transport, "verbs");
}

// ---------------------------------------------------------------------------
// The wire (issue 28, item 1): perftest's wire protocol is chosen by its own
// option, and --transport names a transport only.

std::optional<bench::Wire> WireOf(const std::string& command, const ParserConfig& config) {
  return ParseRun(command, config).wire;
}

TEST(WireRule, ATransportDecidesTheWireUnlessGiven) {
  EXPECT_EQ(WireOf("write_bw --transport verbs h", WithVerbs()), bench::Wire::kPerftest);
  EXPECT_EQ(WireOf("write_bw --transport tcp h", WithVerbs()), bench::Wire::kXfer);
  EXPECT_EQ(WireOf("write_bw h", WithVerbs()), std::nullopt);  // decided at run time
  EXPECT_EQ(WireOf("write_bw -d rxe0 h", WithVerbs()), bench::Wire::kPerftest);
  EXPECT_EQ(WireOf("atomic_bw h", WithVerbs()), bench::Wire::kPerftest);
  EXPECT_EQ(WireOf("write_bw h", {}), std::nullopt);
  EXPECT_EQ(WireOf("write_bw --transport shm h", {}), bench::Wire::kXfer);
}

TEST(WireRule, WireXferRunsTheEnginesVerbsTransport) {
  const bench::BenchParams p = ParseRun("write_bw --wire xfer --transport verbs -d rxe0 h", WithVerbs());
  EXPECT_EQ(p.wire, bench::Wire::kXfer);
  EXPECT_EQ(p.transport, "verbs");
  EXPECT_EQ(p.verbs.device, "rxe0");
  EXPECT_TRUE(p.notes.empty());
  // Without --transport, --wire xfer lets the engine choose, verbs flags or not.
  const bench::BenchParams chosen = ParseRun("write_bw --wire xfer -d rxe0 h", WithVerbs());
  EXPECT_EQ(chosen.wire, bench::Wire::kXfer);
  EXPECT_EQ(chosen.transport, "");
}

TEST(WireRule, WirePerftestTakesItsTransportAndNothingElse) {
  const bench::BenchParams p = ParseRun("write_bw --wire perftest h", WithVerbs());
  EXPECT_EQ(p.wire, bench::Wire::kPerftest);
  EXPECT_EQ(p.transport, "verbs");
  EXPECT_EQ(ErrorOf("write_bw --wire perftest --transport tcp h", WithVerbs()),
            "--wire perftest runs on --transport verbs only, not tcp");
  EXPECT_EQ(ErrorOf("write_bw --wire perftest h", {}),
            "--wire perftest: this xfer is built without RDMA verbs, the one transport "
            "perftest's wire protocol runs on");
  EXPECT_EQ(ErrorOf("write_bw --wire ib h", WithVerbs()), "--wire: 'ib' is neither perftest nor xfer");
}

TEST(WireRule, OnlyPerftestsWireRunsAtomicsAndBidirectionalSend) {
  EXPECT_EQ(ErrorOf("atomic_bw --wire xfer h", WithVerbs()),
            "--wire xfer: atomic_bw runs on perftest's wire only (--wire perftest)");
  EXPECT_EQ(ErrorOf("atomic_lat --wire xfer --transport verbs h", WithVerbs()),
            "--wire xfer: atomic_lat runs on perftest's wire only (--wire perftest)");
  EXPECT_TRUE(Contains(ErrorOf("send_bw -b --wire xfer h", WithVerbs()),
                       "send_bw runs bidirectional on RDMA verbs only; --wire xfer does not "
                       "support it yet"));
  EXPECT_EQ(ParseRun("send_bw -b --wire perftest h", WithVerbs()).wire, bench::Wire::kPerftest);
}

// Issue 28, item 2: the engine's transport settings come from the typed
// flags through the transports' own tables; the CLI knows no key.
TEST(WireRule, TypedFlagsSetTheOptionsTheTablesMapThemTo) {
  ParserConfig config = WithVerbs();
  config.transport_options = {{.transport = "verbs", .key = "device", .flag = "-d"},
                              {.transport = "verbs", .key = "gid_index", .integer = true,
                               .flag = "-x"},
                              {.transport = "other", .key = "lane", .flag = "--ib-dev"}};
  const bench::BenchParams p =
      ParseRun("write_bw --wire xfer --transport verbs -d rxe0 -x 1 -s 4096 h", config);
  EXPECT_EQ(p.transport_options,
            (std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>>{
                {"verbs", {{"device", "rxe0"}, {"gid_index", "1"}}}, {"other", {{"lane", "rxe0"}}}}));
  EXPECT_TRUE(ParseRun("write_bw --wire xfer -s 4096 h", config).transport_options.empty());
  // No table, no settings: a build without the transport.
  EXPECT_TRUE(ParseRun("write_bw --wire xfer -d rxe0 h", WithVerbs()).transport_options.empty());
}

TEST(WireRule, ASecretImpliesXfersWireAndPerftestsRefusesIt) {
  const std::string secret = testing_util::SecretFile();
  const bench::BenchParams verbs =
      ParseRun("write_bw --transport verbs --secret-file " + secret + " h", WithVerbs());
  EXPECT_EQ(verbs.wire, bench::Wire::kXfer);
  EXPECT_EQ(verbs.transport, "verbs");
  EXPECT_TRUE(HasNoteContaining(verbs, "--secret-file: runs on xfer's wire protocol (--wire xfer)"));
  const bench::BenchParams tcp =
      ParseRun("write_bw --transport tcp --secret-file " + secret + " h", WithVerbs());
  EXPECT_EQ(tcp.wire, bench::Wire::kXfer);
  EXPECT_TRUE(tcp.notes.empty());
  EXPECT_EQ(ErrorOf("write_bw --wire perftest --secret-file " + secret + " h", WithVerbs()),
            "--secret-file: perftest's wire protocol has no place for a secret; use --wire xfer");
}

// ---------------------------------------------------------------------------
// Atomic tests.

TEST(AtomicTests, PerftestDefaults) {
  const bench::BenchParams bw = ParseRun("atomic_bw h", WithVerbs());
  EXPECT_EQ(bw.verb, Verb::kAtomic);
  EXPECT_EQ(bw.kind, Kind::kBandwidth);
  EXPECT_EQ(bw.size, 8u);
  EXPECT_EQ(bw.iterations, 1000u);
  EXPECT_EQ(bw.tx_depth, 128u);
  EXPECT_EQ(bw.rx_depth, 1u);
  EXPECT_EQ(bw.cq_mod, 100u);  // 8 bytes: no large-message rule
  EXPECT_EQ(bw.verbs.atomic_type, AtomicType::kFetchAndAdd);
  EXPECT_TRUE(bw.notes.empty());

  const bench::BenchParams lat = ParseRun("ib_atomic_lat h", WithVerbs());
  EXPECT_EQ(lat.verb, Verb::kAtomic);
  EXPECT_EQ(lat.kind, Kind::kLatency);
  EXPECT_EQ(lat.size, 8u);
  EXPECT_EQ(lat.iterations, 1000u);
  EXPECT_EQ(lat.tx_depth, 1u);
  EXPECT_EQ(lat.rx_depth, 1u);
}

TEST(AtomicTests, SizeIsFixedAtEight) {
  EXPECT_EQ(ErrorOf("atomic_bw -s 16 h", WithVerbs()),
            "-s/--size: Message size cannot be changed for Atomic tests");
  EXPECT_TRUE(Contains(ErrorOf("atomic_lat -s 4 h", WithVerbs()),
                       "Message size cannot be changed for Atomic tests"));
  EXPECT_EQ(ParseRun("atomic_bw -s 8 h", WithVerbs()).size, 8u);
}

TEST(AtomicTests, AllSizesIsRefused) {
  EXPECT_TRUE(Contains(ErrorOf("atomic_bw -a h", WithVerbs()),
                       "-a/--all: not possible in atomic tests"));
  EXPECT_TRUE(Contains(ErrorOf("atomic_lat -a h", WithVerbs()), "-a/--all"));
}

TEST(AtomicTests, AtomicTypeParsing) {
  const bench::BenchParams cas =
      ParseRun("atomic_lat -A CMP_AND_SWAP h", WithVerbs());
  EXPECT_EQ(cas.verbs.atomic_type, AtomicType::kCompareAndSwap);
  EXPECT_EQ(cas.verbs.typed, std::vector<std::string>{"-A CMP_AND_SWAP"});
  EXPECT_EQ(ParseRun("atomic_bw --atomic_type=FETCH_AND_ADD h", WithVerbs())
                .verbs.atomic_type,
            AtomicType::kFetchAndAdd);
  EXPECT_TRUE(Contains(ErrorOf("atomic_bw -A XOR h", WithVerbs()),
                       "-A/--atomic_type: invalid atomic type 'XOR'"));
  EXPECT_TRUE(Contains(ErrorOf("atomic_bw -A cmp_and_swap h", WithVerbs()),
                       "invalid atomic type"));
  EXPECT_TRUE(Contains(ErrorOf("write_bw -A FETCH_AND_ADD h", WithVerbs()),
                       "-A/--atomic_type: only for atomic tests"));
}

TEST(AtomicTests, ScopesFollowPerftest) {
  EXPECT_TRUE(ParseRun("atomic_bw -b h", WithVerbs()).bidirectional);
  EXPECT_EQ(ParseRun("atomic_bw -q 4 -l 2 h", WithVerbs()).post_list, 2u);
  EXPECT_TRUE(Contains(ErrorOf("atomic_lat -b h", WithVerbs()),
                       "-b/--bidirectional: only for bandwidth"));
  EXPECT_TRUE(Contains(ErrorOf("atomic_bw -I 16 h", WithVerbs()),
                       "-I/--inline_size: not available in read and atomic"));
  EXPECT_TRUE(Contains(ErrorOf("atomic_bw -r 4 h", WithVerbs()),
                       "-r/--rx-depth"));
}

// -b: every bandwidth test, as perftest; send_bw only where verbs may run.
TEST(Bidirectional, AllowedWhereXferHonoursIt) {
  EXPECT_TRUE(ParseRun("write_bw -b h", WithVerbs()).bidirectional);
  EXPECT_TRUE(ParseRun("read_bw -b h", WithVerbs()).bidirectional);
  EXPECT_TRUE(ParseRun("atomic_bw -b h", WithVerbs()).bidirectional);
  EXPECT_TRUE(ParseRun("send_bw -b h", WithVerbs()).bidirectional);
  EXPECT_TRUE(Contains(ErrorOf("send_bw -b --transport tcp h", WithVerbs()),
                       "send_bw runs bidirectional on RDMA verbs only; tcp does not"));
  EXPECT_TRUE(Contains(ErrorOf("send_bw -b h", ParserConfig{}),
                       "send_bw runs bidirectional on RDMA verbs only"));
}

// ---------------------------------------------------------------------------
// Connection types: perftest's per-verb rules; XRC, DC and SRD refused.

struct ConnectionCase {
  const char* command;
  Connection connection;
};

void PrintTo(const ConnectionCase& c, std::ostream* os) { *os << c.command; }

class ConnectionTest : public testing::TestWithParam<ConnectionCase> {};

TEST_P(ConnectionTest, Accepted) {
  const bench::BenchParams p = ParseRun(GetParam().command, WithVerbs());
  EXPECT_EQ(p.verbs.connection, GetParam().connection);
  EXPECT_EQ(p.transport, "verbs");
}

INSTANTIATE_TEST_SUITE_P(
    Allowed, ConnectionTest,
    testing::Values(ConnectionCase{"write_bw -c RC h", Connection::kRC},
                    ConnectionCase{"write_bw -c UC h", Connection::kUC},
                    ConnectionCase{"write_lat -c UC h", Connection::kUC},
                    ConnectionCase{"send_bw -c UC h", Connection::kUC},
                    ConnectionCase{"send_bw -c UD h", Connection::kUD},
                    ConnectionCase{"send_lat -c UD h", Connection::kUD},
                    ConnectionCase{"read_bw -c RC h", Connection::kRC},
                    ConnectionCase{"atomic_bw -c RC h", Connection::kRC}));

struct RefusedCase {
  const char* command;
  const char* message_part;
};

void PrintTo(const RefusedCase& c, std::ostream* os) { *os << c.command; }

class ConnectionRefusedTest : public testing::TestWithParam<RefusedCase> {};

TEST_P(ConnectionRefusedTest, IsUsageError) {
  for (const ParserConfig& config : {WithVerbs(), ParserConfig{}}) {
    const std::string message = ErrorOf(GetParam().command, config);
    EXPECT_TRUE(Contains(message, GetParam().message_part)) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Refused, ConnectionRefusedTest,
    testing::Values(
        RefusedCase{"read_bw -c UC h",
                    "-c/--connection: UC connection is not possible in read "
                    "and atomic tests"},
        RefusedCase{"read_lat -c UC h", "UC connection is not possible"},
        RefusedCase{"atomic_bw -c UC h", "UC connection is not possible"},
        RefusedCase{"atomic_lat -c UD h",
                    "UD connection is only possible in send tests"},
        RefusedCase{"write_bw -c UD h",
                    "-c/--connection: UD connection is only possible in send"},
        RefusedCase{"read_bw -c UD h", "UD connection is only possible"},
        RefusedCase{"send_bw -c XRC h",
                    "-c/--connection: XRC connection is not supported by "
                    "xfer yet"},
        RefusedCase{"write_bw -c DC h",
                    "DC connection is not supported by xfer yet"},
        RefusedCase{"send_bw -c SRD h",
                    "SRD connection is not supported by xfer yet"},
        RefusedCase{"write_bw -c rc h", "invalid connection type 'rc'"}));

// ---------------------------------------------------------------------------
// Help.

std::string HelpOf(const std::string& command, const ParserConfig& config) {
  Result<ParsedCommand> parsed = Parse(command, config);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  if (!parsed.ok()) return "";
  EXPECT_EQ(parsed->action, ParsedCommand::Action::kHelp);
  return parsed->help_text;
}

TEST(VerbsHelp, AtomicHelpListsItsFlags) {
  const std::string help = HelpOf("atomic_bw --help", WithVerbs());
  EXPECT_TRUE(Contains(help, "atomic_bw runs on RDMA verbs only"));
  EXPECT_TRUE(Contains(help, "  -A, --atomic_type=<type>"));
  EXPECT_TRUE(Contains(help, "(default FETCH_AND_ADD)"));
  EXPECT_TRUE(Contains(help, "  -o, --outs=<num>"));
  EXPECT_TRUE(Contains(help, "(default 8)"));  // -s
  EXPECT_FALSE(Contains(help, "--inline_size"));
  EXPECT_TRUE(Contains(help, "  -b, --bidirectional"));

  const std::string write = HelpOf("write_bw --help", WithVerbs());
  EXPECT_FALSE(Contains(write, "--atomic_type"));
  EXPECT_FALSE(Contains(write, "runs on RDMA verbs only"));
  EXPECT_TRUE(Contains(write, "--inline_size"));
}

TEST(VerbsHelp, HeadingSaysWhoHonoursVerbsOptions) {
  const std::string with = HelpOf("write_bw --help", WithVerbs());
  EXPECT_TRUE(Contains(with,
                       "RDMA verbs options (honoured by the verbs transport; "
                       "shm and tcp note them as ignored):"));
  EXPECT_TRUE(Contains(with, "--transport=<shm|tcp|verbs>  Transport to use "
                             "(default: verbs when an RDMA verbs option"));
  EXPECT_FALSE(Contains(with, "--rdma_cm")) << with;
  EXPECT_TRUE(Contains(with, "not supported yet: -e -g -L -M -O -R -T -w")) << with;

  const std::string without = HelpOf("write_bw --help", {});
  EXPECT_TRUE(Contains(without,
                       "RDMA verbs options (checked, then ignored: shm and "
                       "tcp have no verbs device):"));
  EXPECT_FALSE(Contains(without, "default: verbs"));
}

}  // namespace
}  // namespace xfer::cli
