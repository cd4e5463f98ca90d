// Where xfer's commands write (issue 27, defects 1, 6 and 10), as a user
// meets it: a link given to -o or --json stays a link and its target gets
// the output, two outputs that are one file are refused, an output that is
// the command's own input is refused and the input kept, and a full device
// on standard output fails the command.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/process.h"

namespace xfer::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::string FileText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class OutputPathsE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("xfer-output-e2e-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    run_ = dir_ / "run.json";
    fs::copy_file(fs::path(XFER_SOURCE_DIR) / "tests/report/testdata/write_bw.json", run_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  fs::path run_;
};

TEST_F(OutputPathsE2e, AReportWrittenThroughALinkKeepsTheLink) {
  fs::create_symlink("target.html", dir_ / "link.html");
  ProcessResult report = RunXfer({"report", run_.string(), "-o", (dir_ / "link.html").string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.html"));
  EXPECT_NE(FileText(dir_ / "target.html").find("<html"), std::string::npos);
}

TEST_F(OutputPathsE2e, AReportOverItsOwnInputIsRefusedAndTheInputKept) {
  const std::string before = FileText(run_);
  fs::create_symlink(run_, dir_ / "alias.json");
  for (const fs::path& output : {run_, dir_ / "alias.json"}) {
    ProcessResult report = RunXfer({"report", run_.string(), "-o", output.string()});
    EXPECT_EQ(report.exit_code, 2) << report.err;
    EXPECT_NE(report.err.find("is the file the run " + run_.string() + " that this command reads"),
              std::string::npos)
        << report.err;
    EXPECT_EQ(FileText(run_), before);
  }
}

// Issue 43, item 1: one rule for every command and every output flag: an
// output that is, after links, a file the command reads, or lies inside a
// folder it reads, is refused before anything runs (exit 2), and the input
// is left byte for byte.
TEST_F(OutputPathsE2e, NoCommandWritesAnOutputOverAnInput) {
  const fs::path secret = dir_ / "secret";
  std::ofstream(secret) << "0123456789abcdef-a-long-enough-secret\n";
  fs::permissions(secret, fs::perms::owner_read | fs::perms::owner_write);
  fs::create_symlink(secret, dir_ / "secret-link");
  const fs::path sysfs = dir_ / "sysfs";
  fs::create_directories(sysfs / "sys" / "class");
  const std::string run_text = FileText(run_);
  const std::string secret_text = FileText(secret);
  struct Refused {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Refused> cases = {
      {{"doctor", "--run", run_.string(), "--json", run_.string()}, "--json " + run_.string()},
      {{"write_bw", "--loopback", "--transport", "shm", "-n", "20", "--secret-file",
        secret.string(), "--json", (dir_ / "secret-link").string()},
       "is the file --secret-file " + secret.string()},
      {{"matrix", "--loopback", "--transfer_size", "1M", "--block_sizes", "16K", "--loops", "1",
        "--quiet", "--secret-file", secret.string(), "--csv", secret.string()},
       "--csv " + secret.string()},
      {{"matrix", "--loopback", "--transfer_size", "1M", "--block_sizes", "16K", "--loops", "1",
        "--quiet", "--secret-file", secret.string(), "--markdown", secret.string()},
       "--markdown " + secret.string()},
      {{"doctor", "--sysfs-root", sysfs.string(), "--json", (sysfs / "sys" / "out.json").string()},
       "is inside --sysfs-root " + sysfs.string()},
      {{"report", run_.string(), "--markdown", "-o", run_.string()}, "-o/--output"},
  };
  for (const Refused& c : cases) {
    ProcessResult result = RunXfer(c.args, 60s);
    EXPECT_EQ(result.exit_code, 2) << c.args.front() << ": " << result.err;
    EXPECT_NE(result.err.find(c.expected), std::string::npos) << result.err;
    EXPECT_EQ(result.out, "") << "nothing runs before the refusal";
    EXPECT_EQ(FileText(run_), run_text);
    EXPECT_EQ(FileText(secret), secret_text);
    EXPECT_TRUE(fs::is_symlink(dir_ / "secret-link"));
  }
  EXPECT_FALSE(fs::exists(sysfs / "sys" / "out.json"));
  // A folder the doctor does not read is fine beside the one it does.
  ProcessResult beside = RunXfer({"doctor", "--sysfs-root", (sysfs / "sys").string(), "--json",
                                  (dir_ / "findings.json").string()},
                                 60s);
  EXPECT_EQ(beside.err.find("is inside"), std::string::npos) << beside.err;
}

// Issue 43, item 19: an input path of the wrong kind is named as such, not
// parsed as an empty or broken file.
TEST_F(OutputPathsE2e, InputPathsOfTheWrongKindAreNamedAsSuch) {
  const std::string folder = dir_.string();
  ProcessResult report = RunXfer({"report", folder, "-o", (dir_ / "x.html").string()});
  EXPECT_NE(report.exit_code, 0);
  EXPECT_NE(report.err.find(folder + ": is a directory"), std::string::npos) << report.err;
  ProcessResult doctor = RunXfer({"doctor", "--run", folder});
  EXPECT_NE(doctor.exit_code, 0);
  EXPECT_NE(doctor.err.find(folder + ": is a directory"), std::string::npos) << doctor.err;
  ProcessResult root = RunXfer({"doctor", "--sysfs-root", run_.string()});
  EXPECT_NE(root.exit_code, 0);
  EXPECT_NE(root.err.find("--sysfs-root " + run_.string() + ": is not a directory"),
            std::string::npos)
      << root.err;
  ProcessResult compare = RunXfer({"compare", run_.string(), "/dev/null"});
  EXPECT_NE(compare.exit_code, 0);
  EXPECT_NE(compare.err.find("/dev/null: is not a regular file"), std::string::npos)
      << compare.err;
}

TEST_F(OutputPathsE2e, AMatrixWithTwoOutputsThatAreOneFileIsRefusedBeforeItRuns) {
  std::ofstream(dir_ / "target.json") << "keep me";
  fs::create_symlink("target.json", dir_ / "m.json");
  fs::create_symlink("target.json", dir_ / "c.csv");
  ProcessResult matrix = RunXfer({"matrix", "--loopback", "--transfer_size", "1M",
                                  "--block_sizes", "16K", "--loops", "1", "--quiet", "--json",
                                  (dir_ / "m.json").string(), "--csv", (dir_ / "c.csv").string()},
                                 60s);
  EXPECT_NE(matrix.exit_code, 0);
  EXPECT_NE(matrix.err.find("same file as --json"), std::string::npos) << matrix.err;
  EXPECT_EQ(FileText(dir_ / "target.json"), "keep me");
  EXPECT_TRUE(fs::is_symlink(dir_ / "m.json"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "c.csv"));
}

TEST_F(OutputPathsE2e, ARunsJsonThroughALinkKeepsTheLink) {
  fs::create_symlink("result.json", dir_ / "link.json");
  ProcessResult run = RunXfer({"write_bw", "--loopback", "--transport", "shm", "-n", "20", "-s",
                               "4096", "--json", (dir_ / "link.json").string()},
                              60s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_NE(FileText(dir_ / "result.json").find("\"results\""), std::string::npos);
}

TEST_F(OutputPathsE2e, AFullDeviceOnStandardOutputFailsTheCommand) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this host";
  ProcessResult compare = RunProgram(
      "bash", {"-c", std::string("\"$0\" compare \"$1\" \"$1\" > /dev/full"), XFER_BINARY,
               run_.string()},
      30s);
  EXPECT_EQ(compare.exit_code, 1) << compare.err;
  EXPECT_NE(compare.err.find("writing standard output: No space left on device"),
            std::string::npos)
      << compare.err;
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST_F(OutputPathsE2e, AReportToADeviceIsWrittenThroughNotReplaced) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this host";
  ProcessResult report = RunXfer({"report", run_.string(), "-o", "/dev/full"});
  EXPECT_EQ(report.exit_code, 1);
  EXPECT_NE(report.err.find("No space left on device"), std::string::npos) << report.err;
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

// Issue 27, defect 14: an output path that cannot be written is bad usage
// (exit 2) for every command that writes one, before anything runs.
TEST_F(OutputPathsE2e, AnUnwritableOutputIsBadUsageForEveryCommand) {
  const std::string nowhere = (dir_ / "no" / "such" / "out.json").string();
  const std::vector<std::vector<std::string>> commands = {
      {"write_bw", "--loopback", "--transport", "shm", "-n", "20", "--json", nowhere},
      {"matrix", "--loopback", "--transfer_size", "1M", "--block_sizes", "16K", "--loops", "1",
       "--quiet", "--json", nowhere},
      {"doctor", "--json", nowhere},
      {"report", run_.string(), "-o", nowhere},
  };
  for (const auto& command : commands) {
    ProcessResult run = RunXfer(command, 60s);
    EXPECT_EQ(run.exit_code, 2) << command[0] << ": " << run.err;
    EXPECT_NE(run.err.find(nowhere), std::string::npos) << command[0] << ": " << run.err;
    EXPECT_EQ(run.out.find("#bytes"), std::string::npos) << command[0] << ": nothing ran";
  }
  EXPECT_FALSE(fs::exists(dir_ / "no"));
  // Issue 43, item 20: a file nobody may write is found out before the run
  // (root passes access() on /proc/version), once, with exit 2.
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"report", run_.string(), "-o", "/proc/version"},
                                             {"write_bw", "--loopback", "--transport", "shm",
                                              "-n", "20", "--json", "/proc/version"}}) {
    ProcessResult run = RunXfer(command, 60s);
    EXPECT_EQ(run.exit_code, 2) << command[0] << ": " << run.err;
    EXPECT_NE(run.err.find("/proc/version: cannot write it"), std::string::npos) << run.err;
  }
}

// Issue 43, item 20: a write that fails at the end (a full device) says so
// once, and the run fails.
TEST_F(OutputPathsE2e, AJsonThatCannotBeWrittenIsReportedOnce) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this host";
  ProcessResult run = RunXfer(
      {"write_bw", "--loopback", "--transport", "shm", "-n", "20", "--json", "/dev/full"}, 60s);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const std::string what = "No space left on device";
  const size_t first = run.err.find(what);
  ASSERT_NE(first, std::string::npos) << run.err;
  EXPECT_EQ(run.err.find(what, first + 1), std::string::npos) << "said twice:\n" << run.err;
}

}  // namespace
}  // namespace xfer::testing
