// MatrixReporter over a temporary directory: the files exist from the
// plan on, hold each finished cell before the run ends, are replaced
// whole, and every failure names its flag. The progress line appears on
// its own stream, and only when asked for.
#include "report/matrix/matrix_reporter.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "report/matrix/matrix_fixture.h"

namespace xfer::report {
namespace {

using matrix::CellStatus;
using nlohmann::json;
namespace fs = std::filesystem;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string ReadStream(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, n);
  return text;
}

// The run as the initiator holds it at OnPlan: nothing measured yet.
matrix::MatrixRun RunBeforeItStarts() {
  matrix::MatrixRun run = testing::SampleRun();
  for (matrix::CellResult& cell : run.cells) {
    if (cell.status == CellStatus::kUnsupported) continue;
    const std::string transport = cell.transport;
    const matrix::Direction direction = cell.direction;
    const uint64_t block = cell.block_size;
    cell = matrix::CellResult{};
    cell.transport = transport;
    cell.direction = direction;
    cell.block_size = block;
  }
  run.outcome = matrix::RunOutcome::kRunning;
  run.end_time.clear();
  run.error.clear();
  return run;
}

class MatrixReporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "xfer_matrix_reporter_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    out_ = std::tmpfile();
    progress_ = std::tmpfile();
    ASSERT_NE(out_, nullptr);
    ASSERT_NE(progress_, nullptr);
  }
  void TearDown() override {
    if (out_ != nullptr) std::fclose(out_);
    if (progress_ != nullptr) std::fclose(progress_);
    std::error_code ignored;
    fs::permissions(dir_, fs::perms::owner_all, ignored);
    fs::remove_all(dir_, ignored);
  }
  matrix::MatrixConfig Config() const {
    matrix::MatrixConfig config = testing::SampleRun().config;
    config.json_path = (dir_ / "out.json").string();
    config.csv_path = (dir_ / "out.csv").string();
    config.markdown_path = (dir_ / "out.md").string();
    return config;
  }

  fs::path dir_;
  std::FILE* out_ = nullptr;
  std::FILE* progress_ = nullptr;
};

// Issue 27, defect 1: checking the paths writes nothing, so a file from an
// earlier run stays whole until this run has something to put in its place.
TEST_F(MatrixReporterTest, PrepareWritesNothingAndKeepsWhatIsThere) {
  std::ofstream(dir_ / "out.csv") << "stale contents";
  MatrixReporter reporter(out_, progress_, false);
  ASSERT_TRUE(reporter.Prepare(Config()).ok());
  EXPECT_EQ(ReadText(dir_ / "out.csv"), "stale contents");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(MatrixReporterTest, PrepareSkipsPathsNotAskedFor) {
  matrix::MatrixConfig config = Config();
  config.csv_path.clear();
  config.markdown_path.clear();
  MatrixReporter reporter(out_, progress_, false);
  ASSERT_TRUE(reporter.Prepare(config).ok());
  reporter.OnPlan(RunBeforeItStarts());
  reporter.OnFinish(RunBeforeItStarts());
  EXPECT_TRUE(fs::exists(dir_ / "out.json"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(MatrixReporterTest, PrepareFailsNamingTheFlag) {
  matrix::MatrixConfig config = Config();
  config.json_path = (dir_ / "no" / "such" / "out.json").string();
  MatrixReporter reporter(out_, progress_, false);
  Status status = reporter.Prepare(config);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  EXPECT_EQ(status.message(), "--json " + config.json_path +
                                  ": cannot create a file there: No such file or directory");

  config = Config();
  config.markdown_path = dir_.string();
  status = reporter.Prepare(config);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "--markdown " + dir_.string() + ": is a directory");
}

// A path no user can create, root included (CI runs as root, which writes
// through permission bits): its parent is a regular file.
TEST_F(MatrixReporterTest, PrepareFailsOnAPathThatCannotBeCreated) {
  const fs::path plain = dir_ / "plain";
  std::ofstream(plain) << "not a directory";
  matrix::MatrixConfig config = Config();
  config.csv_path = (plain / "out.csv").string();
  MatrixReporter reporter(out_, progress_, false);
  const Status status = reporter.Prepare(config);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "--csv " + config.csv_path + ": cannot write there: Not a directory");
}

TEST_F(MatrixReporterTest, PrepareRejectsOnePathForTwoFlags) {
  matrix::MatrixConfig config = Config();
  config.csv_path = config.json_path;
  MatrixReporter reporter(out_, progress_, false);
  const Status status = reporter.Prepare(config);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "--csv " + config.json_path + ": same file as --json " + config.json_path);
}

TEST_F(MatrixReporterTest, FilesHoldThePlanThenEachFinishedCell) {
  MatrixReporter reporter(out_, progress_, false);
  ASSERT_TRUE(reporter.Prepare(Config()).ok());
  matrix::MatrixRun run = RunBeforeItStarts();
  reporter.OnPlan(run);

  json doc = json::parse(ReadText(dir_ / "out.json"));
  ASSERT_EQ(doc["cells"].size(), run.cells.size());
  const size_t cell = run.CellIndex(0, 2, 0);  // shm H2rH 16K
  EXPECT_EQ(doc["cells"][cell]["status"], "not run");
  EXPECT_EQ(doc["run"]["outcome"], "running");
  EXPECT_NE(ReadText(dir_ / "out.csv").find("H2rH,write,"), std::string::npos);

  const matrix::MatrixRun finished = testing::SampleRun();
  run.cells[cell] = finished.cells[cell];
  reporter.OnSample(run, cell, 6, 6);
  reporter.OnCellDone(run, cell);
  doc = json::parse(ReadText(dir_ / "out.json"));
  EXPECT_EQ(doc["cells"][cell]["status"], "ok");
  EXPECT_DOUBLE_EQ(doc["cells"][cell]["median_gbps"].get<double>(), 5.2);
  EXPECT_NE(ReadText(dir_ / "out.csv").find(",ok,5.200000,"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "out.md"));  // written at the end only
  for (const auto& entry : fs::directory_iterator(dir_)) {  // no temporary file left
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
  }
  EXPECT_EQ(ReadStream(out_), "");  // tables only at the end
  EXPECT_TRUE(reporter.status().ok()) << reporter.status().ToString();
}

TEST_F(MatrixReporterTest, FinishWritesEverythingAndPrintsTheTables) {
  MatrixReporter reporter(out_, progress_, false);
  ASSERT_TRUE(reporter.Prepare(Config()).ok());
  reporter.OnPlan(RunBeforeItStarts());
  const matrix::MatrixRun run = testing::SampleRun();
  reporter.OnFinish(run);
  EXPECT_EQ(json::parse(ReadText(dir_ / "out.json"))["run"]["outcome"], "failed");
  EXPECT_NE(ReadText(dir_ / "out.csv").find(",not run,"), std::string::npos);
  EXPECT_NE(ReadText(dir_ / "out.md").find("| Block | D2rD<br>shm |"), std::string::npos);
  const std::string out = ReadStream(out_);
  EXPECT_TRUE(out.starts_with(" xfer matrix: GB/s = 10^9 B/s")) << out;
  EXPECT_NE(out.find("--- tcp (path: tcp, 1 stream) ---"), std::string::npos);
  EXPECT_EQ(ReadStream(progress_), "");
  EXPECT_TRUE(reporter.status().ok()) << reporter.status().ToString();
}

TEST_F(MatrixReporterTest, ReplacesFilesByRename) {
  MatrixReporter reporter(out_, progress_, false);
  ASSERT_TRUE(reporter.Prepare(Config()).ok());
  const matrix::MatrixRun run = RunBeforeItStarts();
  reporter.OnPlan(run);
  struct stat before {};
  ASSERT_EQ(::stat((dir_ / "out.json").c_str(), &before), 0);
  reporter.OnCellDone(run, 0);
  struct stat after {};
  ASSERT_EQ(::stat((dir_ / "out.json").c_str(), &after), 0);
  // A new inode each time: a reader never sees the file half rewritten.
  EXPECT_NE(before.st_ino, after.st_ino);
}

TEST_F(MatrixReporterTest, FileErrorMidRunIsKeptAndTheRunGoesOn) {
  matrix::MatrixConfig config = Config();
  config.json_path.clear();
  config.markdown_path.clear();
  MatrixReporter reporter(out_, progress_, false);
  ASSERT_TRUE(reporter.Prepare(config).ok());
  fs::remove_all(dir_);
  const matrix::MatrixRun run = testing::SampleRun();
  reporter.OnPlan(run);
  reporter.OnFinish(run);
  ASSERT_FALSE(reporter.status().ok());
  EXPECT_EQ(reporter.status().code(), StatusCode::kIoError);
  EXPECT_TRUE(reporter.status().message().starts_with(
      "--csv " + config.csv_path + ": cannot create a file there: "))
      << reporter.status().message();
  EXPECT_NE(ReadStream(out_).find("--- shm"), std::string::npos);  // tables still printed
}

TEST_F(MatrixReporterTest, NoProgressUnlessAsked) {
  MatrixReporter reporter(out_, progress_, false);
  const matrix::MatrixRun run = RunBeforeItStarts();
  reporter.OnPlan(run);
  reporter.OnSample(run, run.CellIndex(0, 2, 0), 1, 6);
  reporter.OnCellDone(run, run.CellIndex(0, 2, 0));
  reporter.OnFinish(run);
  EXPECT_EQ(ReadStream(progress_), "");
  EXPECT_NE(ReadStream(out_), "");
}

TEST_F(MatrixReporterTest, ProgressLineIsRedrawnAndClearedBeforeTheTables) {
  MatrixReporter reporter(out_, progress_, true);
  const matrix::MatrixRun run = RunBeforeItStarts();
  reporter.OnPlan(run);
  reporter.OnSample(run, run.CellIndex(0, 2, 0), 1, 6);
  reporter.OnSample(run, run.CellIndex(0, 2, 0), 2, 6);
  const std::string during = ReadStream(progress_);
  EXPECT_TRUE(during.starts_with("\r[ 1/12] shm H2rH 16K sample 1/6")) << during;
  EXPECT_NE(during.find("\x1b[K\r[ 1/12] shm H2rH 16K sample 2/6"), std::string::npos) << during;
  EXPECT_EQ(during.find('\n'), std::string::npos);
  std::fseek(progress_, 0, SEEK_END);
  reporter.OnFinish(run);
  const std::string after = ReadStream(progress_);
  EXPECT_TRUE(after.ends_with("\r\x1b[K")) << after;
  EXPECT_NE(ReadStream(out_), "");
}

TEST_F(MatrixReporterTest, FifoIsWrittenOnceAndNotReplaced) {
  const fs::path fifo = dir_ / "json.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A reader first, so that the reporter's open does not wait for one.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const matrix::MatrixRun sample = testing::SampleRun();
  matrix::MatrixRun run = RunBeforeItStarts();
  run.transports = {"shm"};
  run.config.directions = {sample.config.directions[2]};
  run.config.block_sizes = {sample.config.block_sizes[0]};
  run.cells = {sample.cells[sample.CellIndex(0, 2, 0)]};  // shm H2rH 16K
  run.config.json_path = fifo.string();

  MatrixReporter reporter(out_, progress_, false);
  ASSERT_TRUE(reporter.Prepare(run.config).ok());
  reporter.OnPlan(run);
  reporter.OnCellDone(run, 0);
  reporter.OnFinish(run);
  std::string text;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = ::read(reader, buffer, sizeof buffer)) > 0)
    text.append(buffer, static_cast<size_t>(n));
  ::close(reader);
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_FALSE(fs::exists(dir_ / "json.fifo.tmp"));
  const json doc = json::parse(text);  // exactly one document
  EXPECT_EQ(doc["cells"].size(), 1u);
  EXPECT_TRUE(reporter.status().ok()) << reporter.status().ToString();
}

}  // namespace
}  // namespace xfer::report
