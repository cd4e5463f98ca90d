// --help, --version, the flag table's consistency and the notes for flags
// the transports ignore.
#include <gtest/gtest.h>

#include <fstream>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/build_options.h"
#include "cli/flag_table.h"
#include "cli/help_text.h"
#include "cli/parse_test_util.h"
#include "cli/benchmark_catalog.h"
#include "cli/version.h"
#include "xfer/device.h"

namespace xfer::cli {
namespace {

using Action = ParsedCommand::Action;
using testing_util::HasNoteContaining;
using testing_util::Parse;

std::string TextOf(const std::string& command, Action action) {
  Result<ParsedCommand> parsed = Parse(command);
  EXPECT_TRUE(parsed.ok()) << command << ": " << parsed.status().ToString();
  if (!parsed.ok()) return "";
  EXPECT_EQ(parsed->action, action) << command;
  return parsed->help_text;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(HelpTest, TopLevelListsEveryTest) {
  for (const char* command : {"--help", "-h"}) {
    const std::string text = TextOf(command, Action::kHelp);
    for (const TestInfo& test : AllTests()) {
      EXPECT_TRUE(Contains(text, std::string(test.name))) << test.name;
    }
    EXPECT_TRUE(Contains(text, "xfer <test> [options] <host>"));
  }
}

TEST(HelpTest, TestHelpShowsThatTestsDefaults) {
  const std::string bw = TextOf("write_bw --help", Action::kHelp);
  EXPECT_TRUE(Contains(bw, "  -s, --size=<size> "));
  EXPECT_TRUE(Contains(bw, "  Size of message"));
  EXPECT_TRUE(Contains(bw, "(default 65536)"));
  EXPECT_TRUE(Contains(bw, "(default 5000)"));
  EXPECT_TRUE(Contains(bw, "--transport=<shm|tcp>"));
  EXPECT_TRUE(Contains(bw, "  -q, --qp="));
  EXPECT_TRUE(Contains(bw, "  -d, --ib-dev=<dev>"));

  const std::string lat = TextOf("write_lat -h", Action::kHelp);
  EXPECT_TRUE(Contains(lat, "(default 2)"));
  EXPECT_TRUE(Contains(lat, "(default 1000)"));
  EXPECT_FALSE(Contains(lat, "--qp="));        // bandwidth only
  EXPECT_FALSE(Contains(lat, "--post_list"));  // bandwidth only
  EXPECT_FALSE(Contains(lat, "--outs"));       // read only
}

// Issue 27, defect 8: the margin's default is what the code computes,
// floor(D/4) as perftest, not D/4 (-D 10 measures 6 s, not 5 s).
TEST(HelpTest, TheMarginsDefaultIsSaidAsComputed) {
  const std::string bw = TextOf("write_bw --help", Action::kHelp);
  EXPECT_TRUE(Contains(bw, "only D - 2*margin is measured (default floor(D/4) s, as perftest)"))
      << bw;
  // Issue 43, item 26: and said once.
  const size_t line = bw.find("--margin");
  ASSERT_NE(line, std::string::npos);
  const std::string margin = bw.substr(line, bw.find('\n', line) - line);
  EXPECT_EQ(margin.find("(default"), margin.rfind("(default")) << margin;
}

// Issue 9, defect 13: on every test's help screen, each option line's
// description starts in the same column, whichever transports are offered.
TEST(HelpTest, OptionDescriptionsStartInOneColumn) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> offers = {
      {{"shm", "tcp"}, ""}, {{"shm", "tcp", "verbs"}, "verbs"}};
  for (const auto& [transports, perftest] : offers) {
    for (const TestInfo& test : AllTests()) {
      const std::string text = TestHelp(test, transports, perftest);
      std::istringstream in(text);
      std::set<size_t> columns;
      size_t option_lines = 0;
      for (std::string line; std::getline(in, line);) {
        if (!line.starts_with("  -") && !line.starts_with("      --")) continue;
        // Option texts hold single spaces only ("<num of qp's>"); the first
        // run of two ends them.
        const size_t gap = line.find("  ", line.find_first_not_of(' '));
        ASSERT_NE(gap, std::string::npos) << line;
        columns.insert(line.find_first_not_of(' ', gap));
        ++option_lines;
      }
      EXPECT_GT(option_lines, 20u) << test.name;
      EXPECT_EQ(columns.size(), 1u) << test.name << ":\n" << text;
    }
  }
}

TEST(HelpTest, HelpWinsOverOtherProblemsOnTheLine) {
  EXPECT_FALSE(TextOf("read_bw -s abc --bogus --help", Action::kHelp).empty());
}

// Issue 9, defect 9: one statement of what each perftest version number
// means, in `xfer --version` and, word for word, in docs/cli.md.
TEST(HelpTest, VersionSaysWhatEachPerftestVersionMeans) {
#if XFER_WITH_VERBS
  const std::string compatibility =
      "perftest compatibility: command line and output of perftest 4.5-0.17 (version 6.06)\n"
      "wire version advertised: 6.28 (negotiates parameters with 6.28+ peers; peers from 5.70 "
      "on, 6.06 included, run without negotiation)\n";
  const std::string transports = "transports: shm, tcp, verbs\n";
  EXPECT_TRUE(RdmaVerbsSupport().starts_with("yes (rdma-core's libibverbs ")) << RdmaVerbsSupport();
#else
  const std::string compatibility =
      "perftest compatibility: command line and output of perftest 4.5-0.17 (version 6.06)\n"
      "wire version advertised: none (this build has no RDMA verbs, which perftest's wire "
      "protocol runs on)\n";
  const std::string transports = "transports: shm, tcp\n";
  EXPECT_TRUE(RdmaVerbsSupport().starts_with("no (built without rdma-core")) << RdmaVerbsSupport();
#endif
  EXPECT_EQ(PerftestCompatibilityText(), compatibility);
  for (const char* command : {"--version", "-V", "write_bw -V"}) {
    EXPECT_EQ(TextOf(command, Action::kVersion),
              "xfer " + std::string(XferVersion()) + "\n" + compatibility + transports +
                  "RDMA verbs: " + RdmaVerbsSupport() + "\n" + "CUDA device memory: " +
                  CudaSupport() + "\n")
        << command;
  }
#if XFER_WITH_VERBS  // docs/cli.md shows the full build's
  std::ifstream page(XFER_SOURCE_DIR "/docs/cli.md");
  ASSERT_TRUE(page.good()) << XFER_SOURCE_DIR "/docs/cli.md";
  std::stringstream text;
  text << page.rdbuf();
  EXPECT_TRUE(Contains(text.str(), "\n" + compatibility)) << "docs/cli.md does not quote\n"
                                                          << compatibility;
#endif
}

// Issue 28, item 2: `xfer --help` prints the transports' options from their
// own tables, and docs/libxfer.md quotes those lines word for word.
TEST(HelpTest, TransportOptionsComeFromTheTransportsTables) {
  const std::vector<TransportOptionInfo> table = BuiltinTransportOptions();
  const std::string lines = TransportOptionLines(table);
  if (table.empty()) {
    EXPECT_EQ(lines, "");
    return;
  }
  ParserConfig config;
  config.transport_options = table;
  const Result<ParsedCommand> help = Parse("--help", config);
  ASSERT_TRUE(help.ok()) << help.status().ToString();
  EXPECT_TRUE(Contains(help->help_text, lines)) << "xfer --help does not list\n" << lines;
  std::ifstream page(XFER_SOURCE_DIR "/docs/libxfer.md");
  ASSERT_TRUE(page.good());
  std::stringstream text;
  text << page.rdbuf();
  std::istringstream each(lines);
  for (std::string line; std::getline(each, line);) {
    EXPECT_TRUE(Contains(text.str(), "\n  " + line + "\n")) << "docs/libxfer.md lacks\n" << line;
  }
}

TEST(FlagTableTest, NamesAreUniqueAndRowsComplete) {
  std::set<char> shorts;
  std::set<std::string> longs;
  for (const FlagSpec* spec : AllFlags()) {
    if (spec->short_name != '\0') {
      EXPECT_TRUE(shorts.insert(spec->short_name).second) << spec->short_name;
    }
    EXPECT_TRUE(longs.insert(std::string(LongName(*spec))).second)
        << LongName(*spec);
    EXPECT_FALSE(spec->help.empty()) << LongName(*spec);
    const bool text_only =
        LongName(*spec) == "help" || LongName(*spec) == "version";
    EXPECT_EQ(spec->apply == nullptr, text_only) << LongName(*spec);
  }
}

// Every row of the "not supported yet" group is refused by name, in a test
// of its scope, whatever its value.
TEST(FlagTableTest, UnsupportedFlagsAreRefusedByName) {
  for (const FlagSpec* spec : AllFlags()) {
    if (spec->group != Group::kUnsupported) continue;
    std::string command = "write_bw --" + std::string(LongName(*spec));
    if (TakesValue(*spec)) command += " 1";
    Result<ParsedCommand> parsed = Parse(command + " host");
    ASSERT_FALSE(parsed.ok()) << command;
    EXPECT_TRUE(Contains(parsed.status().message(), DisplayName(*spec)))
        << command << " -> " << parsed.status().message();
  }
}

// ---------------------------------------------------------------------------
// Verbs-only flags: validated, then noted as ignored.

TEST(VerbsNotesTest, NoteNamesFlagValueAndTransport) {
  Result<ParsedCommand> parsed = Parse("write_bw -d mlx5_0 --transport tcp h");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->params.notes.size(), 1u);
  EXPECT_EQ(parsed->params.notes[0],
            "-d mlx5_0: RDMA verbs flag; transport tcp has no verbs device, "
            "ignored");
}

struct NoteCase {
  const char* command;
  const char* note;
};

// Names the case in test output and ctest.
void PrintTo(const NoteCase& c, std::ostream* os) { *os << c.command; }

class VerbsNoteTest : public testing::TestWithParam<NoteCase> {};

TEST_P(VerbsNoteTest, IsPresent) {
  Result<ParsedCommand> parsed = Parse(GetParam().command);
  ASSERT_TRUE(parsed.ok()) << GetParam().command << ": "
                           << parsed.status().ToString();
  EXPECT_TRUE(HasNoteContaining(parsed->params, GetParam().note))
      << GetParam().command;
}

INSTANTIATE_TEST_SUITE_P(
    Flags, VerbsNoteTest,
    testing::Values(
        NoteCase{"write_bw -x 3 h",
                 "-x 3: RDMA verbs flag; transports shm and tcp have no"},
        NoteCase{"write_bw -i 2 h", "-i 2: RDMA verbs flag"},
        NoteCase{"write_bw -m 4096 h", "-m 4096: RDMA verbs flag"},
        NoteCase{"write_bw -S 3 h", "-S 3: RDMA verbs flag"},
        NoteCase{"write_bw -u 20 h", "-u 20: RDMA verbs flag"},
        NoteCase{"write_bw -I 64 h", "-I 64: RDMA verbs flag"},
        NoteCase{"read_bw -o 16 h", "-o 16: RDMA verbs flag"},
        NoteCase{"write_bw --tclass 3 h", "--tclass 3: RDMA verbs flag"},
        NoteCase{"send_bw -c UD --transport shm h",
                 "-c UD: transport shm has reliable connected (RC)"},
        NoteCase{"write_lat --report_gbits h",
                 "--report_gbits: latency tests report no bandwidth"}));

TEST(VerbsNotesTest, ReliableConnectedNeedsNoNote) {
  Result<ParsedCommand> parsed = Parse("write_bw -c RC h");
  ASSERT_TRUE(parsed.ok());
  EXPECT_TRUE(parsed->params.notes.empty());
}

}  // namespace
}  // namespace xfer::cli
