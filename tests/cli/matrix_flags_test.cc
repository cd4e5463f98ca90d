// `xfer matrix` flags: defaults, roles, list and size syntax, and the usage
// errors, each naming its flag.
#include "cli/matrix_flags.h"

#include <gtest/gtest.h>

#include <string>

#include "cli/parse_test_util.h"

namespace xfer::cli {
namespace {

using Action = ParsedCommand::Action;
using testing_util::Parse;

std::string ErrorOf(const std::string& command) {
  Result<ParsedCommand> parsed = Parse(command);
  if (parsed.ok()) return "(parsed)";
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << command;
  return parsed.status().message();
}

TEST(MatrixFlags, DefaultsAreHixlsLauncherDefaults) {
  Result<ParsedCommand> parsed = Parse("matrix --loopback");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->action, Action::kMatrix);
  const matrix::MatrixConfig& c = parsed->matrix;
  EXPECT_EQ(c.role, matrix::Role::kLoopback);
  EXPECT_EQ(c.directions.size(), 8u);
  EXPECT_TRUE(c.transports.empty());
  EXPECT_EQ(c.block_sizes, (std::vector<uint64_t>{16384, 32768, 65536, 131072, 262144, 524288,
                                                  1048576, 2097152}));
  EXPECT_EQ(c.transfer_size, 128u << 20);
  EXPECT_EQ(c.loops, 5u);
  EXPECT_EQ(c.warmup, 1u);
  EXPECT_EQ(c.batch, 1u);
  EXPECT_EQ(c.memory, "host");
  EXPECT_EQ(c.timeout, std::chrono::seconds(10));
  EXPECT_EQ(c.command_line.front(), "xfer");
  EXPECT_EQ(c.command_line.at(1), "matrix");
}

TEST(MatrixFlags, HostMakesTheInitiatorAndNoHostTheTarget) {
  auto initiator = Parse("matrix -p 9000 10.0.0.5");
  ASSERT_TRUE(initiator.ok()) << initiator.status().ToString();
  EXPECT_EQ(initiator->matrix.role, matrix::Role::kInitiator);
  EXPECT_EQ(initiator->matrix.host, "10.0.0.5");
  EXPECT_EQ(initiator->matrix.port, 9000);
  auto target = Parse("matrix -d rxe0 -x 1 -i 1");
  ASSERT_TRUE(target.ok()) << target.status().ToString();
  EXPECT_EQ(target->matrix.role, matrix::Role::kTarget);
  EXPECT_EQ(target->matrix.verbs.device, "rxe0");
  EXPECT_EQ(target->matrix.verbs.gid_index, 1);
}

TEST(MatrixFlags, RailsAreAutoOrACount) {
  auto four = Parse("matrix --loopback --rails 4");
  ASSERT_TRUE(four.ok()) << four.status().ToString();
  EXPECT_EQ(four->matrix.rails, 4u);
  auto automatic = Parse("matrix --loopback --rails auto");
  ASSERT_TRUE(automatic.ok()) << automatic.status().ToString();
  EXPECT_EQ(automatic->matrix.rails, 0u);
  auto unset = Parse("matrix --loopback");
  ASSERT_TRUE(unset.ok());
  EXPECT_EQ(unset->matrix.rails, 0u);
}

TEST(MatrixFlags, ListsAndSizesInHixlsSyntax) {
  auto parsed = Parse(
      "matrix --loopback --directions rH2H,H2rH --transports tcp --block_sizes 1M,4K,64KiB "
      "--transfer_size 8MB --batch 4 --loops 3 --warmup 0 --streams 2 --memory hugepage --verify "
      "--timeout 2.5 --json a.json --csv a.csv --markdown a.md --quiet --timeline 250");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const matrix::MatrixConfig& c = parsed->matrix;
  ASSERT_EQ(c.directions.size(), 2u);
  EXPECT_EQ(c.directions[0].Name(), "rH2H");  // the order given is the column order
  EXPECT_EQ(c.transports, std::vector<std::string>{"tcp"});
  EXPECT_EQ(c.block_sizes, (std::vector<uint64_t>{4096, 65536, 1048576}));  // ascending
  EXPECT_EQ(c.transfer_size, 8u << 20);
  EXPECT_EQ(c.batch, 4u);
  EXPECT_EQ(c.loops, 3u);
  EXPECT_EQ(c.warmup, 0u);
  EXPECT_EQ(c.streams, 2u);
  EXPECT_EQ(c.memory, "hugepage");
  EXPECT_TRUE(c.verify);
  EXPECT_TRUE(c.quiet);
  EXPECT_EQ(c.timeout, std::chrono::milliseconds(2500));
  EXPECT_EQ(c.json_path, "a.json");
  EXPECT_EQ(c.timeline_ms, 250u);
}

// --timeline samples one connection's rails; the cluster matrix has many.
TEST(MatrixFlags, TheClusterMatrixRefusesATimeline) {
  EXPECT_EQ(ErrorOf("matrix --scheme pairwise --timeline 100"),
            "--timeline: not measured by the cluster matrix (--scheme)");
}

TEST(MatrixFlags, BlockSizeRangeDoublesFromStartToEnd) {
  auto parsed = Parse("matrix --loopback --block_sizes 4k:32K --transfer_size 1M");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->matrix.block_sizes, (std::vector<uint64_t>{4096, 8192, 16384, 32768}));
}

TEST(MatrixFlags, BadValuesNameTheirFlag) {
  EXPECT_EQ(ErrorOf("matrix --loopback --block_sizes 16K:3M"),
            "--block_sizes: '16K:3M': both ends of a range must be powers of two (or give a list: "
            "4K,48K,1M)");
  EXPECT_NE(ErrorOf("matrix --loopback --block_sizes 2M:16K").find("runs backwards"),
            std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --block_sizes 4K,,8K").find("--block_sizes: "),
            std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --block_sizes 4K,4K").find("appears twice"),
            std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --block_sizes 16Q").find("unknown size suffix"),
            std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --directions H2rX").find("--directions: 'H2rX' is not a "
                                                                "direction"),
            std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --directions H2rH,H2rH").find("appears twice"),
            std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --transports rdma").find("--transports: 'rdma' is not a "
                                                                "transport"),
            std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --loops 0").find("--loops: "), std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --loops 5x").find("--loops: "), std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --streams 65").find("--streams: "), std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --rails 0").find("--rails: "), std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --rails 17").find("--rails: "), std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --rails two").find("--rails: "), std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --memory gpu").find("--memory: 'gpu' is not a memory kind"),
            std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --timeout 0").find("--timeout: "), std::string::npos);
  auto empty = testing_util::ParseWords({"matrix", "--loopback", "--json", ""});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "--json: empty file name");
}

// Issue 27, defect 12: a repeated option is refused in the same words as
// the tests' (perftest's "Duplicated argument"), pointing to matrix's help.
TEST(MatrixFlags, ARepeatedOptionIsADuplicatedArgument) {
  EXPECT_EQ(ErrorOf("matrix --loopback --loops 1 --loops 0"),
            "--loops: Duplicated argument (see 'xfer matrix --help')");
  EXPECT_EQ(ErrorOf("matrix --loopback --json a.json --json=b.json"),
            "--json: Duplicated argument (see 'xfer matrix --help')");
}

TEST(MatrixFlags, BlocksMustDivideTheTransferAndBatchMustFitTheLargestBlock) {
  EXPECT_NE(ErrorOf("matrix --loopback --block_sizes 3K --transfer_size 1M")
                .find("--block_sizes: 3K does not divide --transfer_size 1M"),
            std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --block_sizes 4M --transfer_size 1M").find("does not divide"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("matrix --loopback --block_sizes 16K:2M --batch 128"),
            "--batch 128: the 2M block makes only 64 entries per sample; use --batch 64 or less, or "
            "a larger --transfer_size");
  EXPECT_NE(ErrorOf("matrix --loopback --block_sizes 64").find("entries per sample, at most"),
            std::string::npos);
}

TEST(MatrixFlags, RoleErrors) {
  EXPECT_NE(ErrorOf("matrix --loopback 10.0.0.1").find("--loopback cannot be combined"),
            std::string::npos);
  EXPECT_NE(ErrorOf("matrix --json x.json").find("the initiator writes the results"),
            std::string::npos);
  EXPECT_NE(ErrorOf("matrix a b").find("unexpected argument"), std::string::npos);
  // Issue 43, item 26: in the words of every other command.
  EXPECT_NE(ErrorOf("matrix --loopback --bogus").find("unknown option '--bogus'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("matrix --loopback --loops 1 --loops 2").find("--loops"), std::string::npos);
}

TEST(MatrixFlags, HelpWinsAndDescribesTheSemantics) {
  auto parsed = Parse("matrix --bogus --help");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->action, Action::kHelp);
  EXPECT_NE(parsed->help_text.find("GB/s = 10^9 bytes/s"), std::string::npos);
  EXPECT_NE(parsed->help_text.find("H2rH writes local host memory"), std::string::npos);
}

}  // namespace
}  // namespace xfer::cli
