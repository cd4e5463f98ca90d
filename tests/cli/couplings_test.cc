// perftest's coupling rules between flags (perftest.md §2.3), through the
// public parser, and their agreement with bench::ResolveSettings(), which
// applies the same rules at run time.
#include "cli/couplings.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "bench/model/statistics.h"
#include "cli/parse_test_util.h"

namespace xfer::cli {
namespace {

using testing_util::HasNoteContaining;
using testing_util::Parse;
using testing_util::ParseRun;

bool HasLineContaining(const std::vector<std::string>& lines,
                       const std::string& part) {
  for (const std::string& line : lines) {
    if (line.find(part) != std::string::npos) return true;
  }
  return false;
}

constexpr const char* kLargeMessage = "Large message requested";
constexpr const char* kPostList = "Post List requested";
constexpr const char* kNoPeak = "BW peak won't be measured";

// ---------------------------------------------------------------------------
// -Q / -t / -n / -l interplay.

struct DepthCase {
  const char* command;
  uint32_t cq_mod;
  uint32_t tx_depth;
  const char* notice;  // a line bench must print, or ""
};

// Names the case in test output and ctest.
void PrintTo(const DepthCase& c, std::ostream* os) { *os << c.command; }

class DepthCouplingTest : public testing::TestWithParam<DepthCase> {};

TEST_P(DepthCouplingTest, FollowsPerftestAndAgreesWithBench) {
  const DepthCase& c = GetParam();
  const bench::BenchParams p = ParseRun(c.command);
  EXPECT_EQ(p.cq_mod, c.cq_mod);
  EXPECT_EQ(p.tx_depth, c.tx_depth);
  // perftest's notices are bench's to print; notes must not repeat them.
  EXPECT_TRUE(p.notes.empty()) << p.notes.front();

  Result<bench::EffectiveSettings> settings =
      bench::ResolveSettings(p, p.cq_mod_given);
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();
  EXPECT_EQ(settings->cq_mod, p.cq_mod);
  EXPECT_EQ(settings->tx_depth, p.tx_depth);
  EXPECT_EQ(settings->rx_depth, p.rx_depth);
  if (std::string(c.notice).empty()) {
    EXPECT_FALSE(HasLineContaining(settings->notices, kLargeMessage));
    EXPECT_FALSE(HasLineContaining(settings->notices, kPostList));
  } else {
    EXPECT_TRUE(HasLineContaining(settings->notices, c.notice));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rules, DepthCouplingTest,
    testing::Values(
        // cq_mod keeps 100 up to 8192 bytes and drops to 1 above.
        DepthCase{"write_bw -s 4096 h", 100, 128, ""},
        DepthCase{"write_bw -s 8192 h", 100, 128, ""},
        DepthCase{"write_bw -s 8193 h", 1, 128, ""},
        // ... unless -Q was given: kept, with perftest's warning.
        DepthCase{"write_bw -s 65536 -Q 10 h", 10, 128, kLargeMessage},
        DepthCase{"write_bw -s 65536 -Q 1 h", 1, 128, ""},
        // -a keeps the default although its sizes reach 8 MiB.
        DepthCase{"write_bw -a h", 100, 128, ""},
        // cq_mod is capped to tx_depth, tx_depth to iterations.
        DepthCase{"write_bw -s 64 -t 16 h", 16, 16, ""},
        DepthCase{"write_bw -s 64 -n 50 h", 50, 50, ""},
        DepthCase{"write_bw -s 64 -Q 500 -t 200 h", 200, 200, ""},
        // ... but not in duration mode.
        DepthCase{"write_bw -s 64 -t 300 -D 4 h", 100, 300, ""},
        // -l > 1 without -Q: cq_mod = post_list.
        DepthCase{"write_bw -s 64 -l 4 h", 4, 128, kPostList},
        DepthCase{"write_bw -s 64 -l 8 -Q 4 h", 4, 128, ""},
        DepthCase{"write_bw -l 8 -Q 8 h", 8, 128, kLargeMessage},
        DepthCase{"write_bw -l 8 h", 8, 128, kPostList},
        // Latency tests: one request in flight, so cq_mod 1.
        DepthCase{"write_lat h", 1, 1, ""},
        DepthCase{"send_lat -Q 50 h", 1, 1, ""}));

TEST(CouplingsTest, RecordsWhetherCqModWasGiven) {
  EXPECT_FALSE(ParseRun("write_bw h").cq_mod_given);
  EXPECT_TRUE(ParseRun("write_bw -Q 100 h").cq_mod_given);
}

TEST(CouplingsTest, PostListMustDivideIterations) {
  Result<ParsedCommand> parsed = Parse("write_bw -l 3 h");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "-n/--iters 5000 must be a multiple of -l/--post_list 3");
  // Duration mode has no iteration count to divide.
  EXPECT_TRUE(Parse("write_bw -l 3 -s 64 -D 4 h").ok());
}

TEST(CouplingsTest, PostListMustBeAMultipleOfCqMod) {
  Result<ParsedCommand> parsed = Parse("write_bw -s 64 -l 8 -Q 3 h");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "-l/--post_list 8 must be a multiple of -Q/--cq-mod 3");
}

TEST(CouplingsTest, PostListMustFitInTxDepth) {
  Result<ParsedCommand> parsed = Parse("write_bw -l 256 -n 512 h");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find(
                "-l/--post_list 256 exceeds -t/--tx-depth 128"),
            std::string::npos);
}

// ---------------------------------------------------------------------------
// Duration mode.

struct DurationCase {
  const char* command;
  double duration_s;
  double margin_s;
};

void PrintTo(const DurationCase& c, std::ostream* os) { *os << c.command; }

class DurationTest : public testing::TestWithParam<DurationCase> {};

TEST_P(DurationTest, MarginDefaultsToAQuarter) {
  const bench::BenchParams p = ParseRun(GetParam().command);
  EXPECT_EQ(p.duration_s, GetParam().duration_s);
  EXPECT_EQ(p.margin_s, GetParam().margin_s);
  Result<bench::DurationWindow> window = bench::ResolveDurationWindow(p);
  ASSERT_TRUE(window.ok()) << window.status().ToString();
  EXPECT_EQ(window->sample_s, p.duration_s - 2 * p.margin_s);
}

INSTANTIATE_TEST_SUITE_P(
    Margins, DurationTest,
    testing::Values(DurationCase{"write_bw -D 10 h", 10, 2},
                    DurationCase{"write_bw -D 60 h", 60, 15},
                    DurationCase{"write_bw -D 1 h", 1, 0},
                    DurationCase{"write_bw -D 5 -f 1 h", 5, 1},
                    DurationCase{"write_lat -D 8 h", 8, 2}));

TEST(CouplingsTest, DurationMustExceedTwiceTheMargin) {
  Result<ParsedCommand> parsed = Parse("write_bw -D 4 -f 2 h");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "-D/--duration 4 must be greater than 2 * -f/--margin 2");
}

TEST(CouplingsTest, IgnoredModeFlagsAreNoted) {
  const bench::BenchParams with_iters = ParseRun("write_bw -D 5 -n 100 h");
  EXPECT_TRUE(HasNoteContaining(with_iters, "-n 100: ignored in duration"));
  const bench::BenchParams with_margin = ParseRun("write_bw -f 3 h");
  EXPECT_TRUE(HasNoteContaining(with_margin, "-f 3: ignored without -D"));
  EXPECT_EQ(with_margin.margin_s, 0);
  const bench::BenchParams with_size = ParseRun("write_bw -a -s 4096 h");
  EXPECT_TRUE(HasNoteContaining(with_size, "-s 4096: ignored with -a"));
}

// ---------------------------------------------------------------------------
// Peak measurement: no_peak is -N; bench forces the rest, with the warning.

struct PeakCase {
  const char* command;
  bool no_peak;   // BenchParams::no_peak (-N)
  bool disabled;  // bench's effective decision
  bool warned;    // bench prints perftest's warning
};

void PrintTo(const PeakCase& c, std::ostream* os) { *os << c.command; }

class PeakTest : public testing::TestWithParam<PeakCase> {};

TEST_P(PeakTest, ForcedOffByPerftestsRulesOnce) {
  const PeakCase& c = GetParam();
  const bench::BenchParams p = ParseRun(c.command);
  EXPECT_EQ(p.no_peak, c.no_peak);
  EXPECT_FALSE(HasNoteContaining(p, kNoPeak));
  Result<bench::EffectiveSettings> settings =
      bench::ResolveSettings(p, p.cq_mod_given);
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();
  EXPECT_EQ(settings->peak_disabled, c.disabled);
  EXPECT_EQ(HasLineContaining(settings->notices, kNoPeak), c.warned);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, PeakTest,
    testing::Values(PeakCase{"write_bw h", false, false, false},
                    PeakCase{"write_bw -n 20000 h", false, false, false},
                    PeakCase{"write_bw -n 20001 h", false, true, true},
                    PeakCase{"write_bw -D 5 h", false, true, true},
                    PeakCase{"write_bw -N h", true, true, false},
                    PeakCase{"write_bw -N -D 5 h", true, true, false},
                    PeakCase{"send_bw", false, true, true},
                    PeakCase{"send_bw h", false, false, false},
                    PeakCase{"send_bw --loopback", false, false, false},
                    PeakCase{"write_bw", false, false, false},
                    PeakCase{"write_lat -D 5 h", false, true, false}));

// ---------------------------------------------------------------------------
// Receive depth (send tests).

struct RxCase {
  const char* command;
  uint32_t rx_depth;
  uint32_t tx_depth;
};

void PrintTo(const RxCase& c, std::ostream* os) { *os << c.command; }

class RxDepthTest : public testing::TestWithParam<RxCase> {};

TEST_P(RxDepthTest, CappedAndEven) {
  const bench::BenchParams p = ParseRun(GetParam().command);
  EXPECT_EQ(p.rx_depth, GetParam().rx_depth);
  EXPECT_EQ(p.tx_depth, GetParam().tx_depth);
  Result<bench::EffectiveSettings> settings =
      bench::ResolveSettings(p, p.cq_mod_given);
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();
  EXPECT_EQ(settings->rx_depth, p.rx_depth);
}

INSTANTIATE_TEST_SUITE_P(Rules, RxDepthTest,
                         testing::Values(RxCase{"send_bw -r 7 h", 8, 128},
                                         RxCase{"send_bw -r 8 h", 8, 128},
                                         RxCase{"send_bw -n 5 h", 6, 5},
                                         RxCase{"send_bw -a -r 7 h", 7, 128},
                                         RxCase{"send_bw -r 100 -D 3 -n 10 h",
                                                100, 128},
                                         RxCase{"write_bw -r 1 h", 1, 128},
                                         RxCase{"send_lat -r 33 h", 34, 1}));

}  // namespace
}  // namespace xfer::cli
