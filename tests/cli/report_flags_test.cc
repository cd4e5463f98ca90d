// `xfer report` and `xfer compare` flags (cli/report_flags.h).
#include "cli/report_flags.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace xfer::cli {
namespace {

using Action = ParsedCommand::Action;

Result<ParsedCommand> Report(std::vector<std::string> args) { return ParseReportCommand(args); }
Result<ParsedCommand> Compare(std::vector<std::string> args) { return ParseCompareCommand(args); }

std::string ReportError(std::vector<std::string> args) {
  auto parsed = Report(std::move(args));
  return parsed.ok() ? "accepted" : parsed.status().message();
}

TEST(ReportFlags, RunsInOrderAndTheOutputInEverySpelling) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"a.json", "-o", "r.html", "b.json"},
        std::vector<std::string>{"-or.html", "a.json", "b.json"},
        std::vector<std::string>{"a.json", "b.json", "--output=r.html"},
        std::vector<std::string>{"a.json", "--output", "r.html", "b.json"}}) {
    auto parsed = Report(args);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    EXPECT_EQ(parsed->action, Action::kReport);
    EXPECT_EQ(parsed->report.runs, (std::vector<std::string>{"a.json", "b.json"}));
    EXPECT_EQ(parsed->report.output, "r.html");
    EXPECT_FALSE(parsed->report.markdown);
  }
}

TEST(ReportFlags, MarkdownMayGoToStdout) {
  auto parsed = Report({"--markdown", "m.json"});
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(parsed->report.markdown);
  EXPECT_EQ(parsed->report.output, "");
}

TEST(ReportFlags, RefusalsNameTheProblem) {
  EXPECT_EQ(ReportError({"a.json"}),
            "-o/--output: required for the HTML report (or --markdown for stdout)");
  EXPECT_EQ(ReportError({"-o", "r.html"}),
            "report: expected at least one RUN.json (see 'xfer report --help')");
  EXPECT_EQ(ReportError({"a.json", "-o"}), "-o/--output: missing value");
  EXPECT_EQ(ReportError({"a.json", "--output="}), "-o/--output: empty value");
  EXPECT_EQ(ReportError({"a.json", "-o", "x", "-o", "y"}), "-o/--output: Duplicated argument");
  EXPECT_EQ(ReportError({"a.json", "--markdown", "--markdown"}), "--markdown: Duplicated argument");
  EXPECT_EQ(ReportError({"a.json", "--pdf", "-o", "r"}),
            "unknown option '--pdf' (see 'xfer report --help')");
}

TEST(ReportFlags, HelpWinsAnywhere) {
  auto parsed = Report({"a.json", "--bogus", "-h"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->action, Action::kHelp);
  EXPECT_EQ(parsed->help_text, ReportHelp());
  EXPECT_EQ(parsed->help_text.back(), '\n');
}

TEST(CompareFlags, ExactlyTwoFiles) {
  auto parsed = Compare({"a.json", "b.json"});
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->action, Action::kCompare);
  EXPECT_EQ(parsed->compare.a, "a.json");
  EXPECT_EQ(parsed->compare.b, "b.json");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{}, std::vector<std::string>{"a.json"},
        std::vector<std::string>{"a.json", "b.json", "c.json"}}) {
    auto refused = Compare(args);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().message(),
              "compare: expected two run files, A.json B.json, got " +
                  std::to_string(args.size()) + " (see 'xfer compare --help')");
  }
  auto option = Compare({"a.json", "-x", "b.json"});
  ASSERT_FALSE(option.ok());
  EXPECT_EQ(option.status().message(), "unknown option '-x' (see 'xfer compare --help')");
  auto help = Compare({"--help"});
  ASSERT_TRUE(help.ok());
  EXPECT_EQ(help->action, Action::kHelp);
}

}  // namespace
}  // namespace xfer::cli
