// Output paths by their nature (issue 27, defect 1): a file is replaced
// atomically, a link is followed and stays a link, a stream (FIFO, device)
// is written through and stays what it was, a directory is refused.
#include "common/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <initializer_list>
#include <string>
#include <thread>

namespace xfer {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("xfer-output-file-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Nothing but `expected` in the folder: no temporary file was left.
  void ExpectOnly(std::initializer_list<std::string> expected) {
    size_t count = 0;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      ++count;
      EXPECT_NE(std::find(expected.begin(), expected.end(), entry.path().filename().string()),
                expected.end())
          << "left behind: " << entry.path();
    }
    EXPECT_EQ(count, expected.size());
  }

  fs::path dir_;
};

TEST_F(OutputFileTest, ANewFileIsCreatedWithTheUsualMode) {
  const fs::path path = dir_ / "new.json";
  ASSERT_TRUE(WriteOutputFile(path, "{}\n").ok());
  EXPECT_EQ(ReadAll(path), "{}\n");
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0644u);
  ExpectOnly({"new.json"});
}

TEST_F(OutputFileTest, AnExistingFileIsReplacedWholeKeepingItsMode) {
  const fs::path path = dir_ / "run.json";
  std::ofstream(path) << "old contents, longer than the new";
  ::chmod(path.c_str(), 0600);
  struct stat before {};
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  ASSERT_TRUE(WriteOutputFile(path, "new").ok());
  struct stat after {};
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  EXPECT_EQ(ReadAll(path), "new");
  EXPECT_NE(before.st_ino, after.st_ino);  // renamed over: never half written
  EXPECT_EQ(after.st_mode & 07777, 0600u);
  ExpectOnly({"run.json"});
}

TEST_F(OutputFileTest, ALinkIsFollowedAndStaysALink) {
  const fs::path target = dir_ / "target.html";
  const fs::path link = dir_ / "link.html";
  std::ofstream(target) << "old";
  fs::create_symlink("target.html", link);  // relative, as `ln -s` makes them
  ASSERT_TRUE(WriteOutputFile(link, "report").ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(ReadAll(target), "report");
  ExpectOnly({"target.html", "link.html"});
}

TEST_F(OutputFileTest, AChainOfLinksLeadsToItsTarget) {
  fs::create_directories(dir_ / "sub");
  fs::create_symlink(dir_ / "sub" / "final.json", dir_ / "sub" / "second");
  fs::create_symlink("sub/second", dir_ / "first");
  ASSERT_TRUE(WriteOutputFile(dir_ / "first", "x").ok());
  EXPECT_TRUE(fs::is_symlink(dir_ / "first"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "sub" / "second"));
  EXPECT_EQ(ReadAll(dir_ / "sub" / "final.json"), "x");  // a dangling link's target is created
}

TEST_F(OutputFileTest, ALinkLoopIsRefused) {
  fs::create_symlink("b", dir_ / "a");
  fs::create_symlink("a", dir_ / "b");
  const Status status = WriteOutputFile(dir_ / "a", "x");
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
  EXPECT_NE(status.message().find("too many levels of symbolic links"), std::string::npos);
  EXPECT_TRUE(fs::is_symlink(dir_ / "a"));
}

TEST_F(OutputFileTest, ADirectoryIsRefused) {
  const Status status = WriteOutputFile(dir_, "x");
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), dir_.string() + ": is a directory");
  EXPECT_TRUE(fs::is_directory(dir_));
}

TEST_F(OutputFileTest, AFifoIsWrittenThroughAndStaysAFifo) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto reader = std::async(std::launch::async, [&fifo] { return ReadAll(fifo); });
  // The reader opens the FIFO when its thread runs: until then a writer
  // finds none, which is an error, not a wait; try until it is there.
  const auto give_up = std::chrono::steady_clock::now() + 5s;
  Status status = WriteOutputFile(fifo, "streamed");
  while (!status.ok() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(10ms);
    status = WriteOutputFile(fifo, "streamed");
  }
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(reader.get(), "streamed");
  EXPECT_TRUE(fs::is_fifo(fifo));
  ExpectOnly({"pipe"});
}

TEST_F(OutputFileTest, AFifoWithoutAReaderIsAnErrorAtOnce) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  const Status status = WriteOutputFile(fifo, "x");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  EXPECT_NE(status.message().find("no process is reading it"), std::string::npos)
      << status.ToString();
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST_F(OutputFileTest, AFullDeviceIsAnErrorAndStaysADevice) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this host";
  auto target = PrepareOutput("/dev/full");
  ASSERT_TRUE(target.ok()) << target.status().ToString();
  EXPECT_EQ(target->mode, OutputMode::kStream);
  const Status status = WriteOutput(*target, "x");
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  EXPECT_NE(status.message().find("No space left on device"), std::string::npos)
      << status.ToString();
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST_F(OutputFileTest, DashAndDevStdoutAreThisProcesssStandardOutput) {
  auto dash = PrepareOutput("-");
  auto dev = PrepareOutput("/dev/stdout");
  ASSERT_TRUE(dash.ok() && dev.ok());
  EXPECT_EQ(dash->mode, OutputMode::kStdout);
  EXPECT_EQ(dev->mode, OutputMode::kStdout);
}

TEST_F(OutputFileTest, PrepareWritesNothing) {
  const fs::path existing = dir_ / "kept.json";
  std::ofstream(existing) << "still here";
  ASSERT_TRUE(PrepareOutput(existing).ok());
  ASSERT_TRUE(PrepareOutput(dir_ / "absent.json").ok());
  EXPECT_EQ(ReadAll(existing), "still here");
  ExpectOnly({"kept.json"});
}

TEST_F(OutputFileTest, AnUnwritableFolderIsNamedBeforeAnythingIsWritten) {
  const Status status = PrepareOutput((dir_ / "missing" / "x.json").string()).status();
  EXPECT_EQ(status.code(), StatusCode::kIoError);
  EXPECT_NE(status.message().find("No such file or directory"), std::string::npos)
      << status.ToString();
}

TEST_F(OutputFileTest, SameFileSeesThroughLinks) {
  const fs::path target = dir_ / "target.json";
  std::ofstream(target) << "x";
  fs::create_symlink(target, dir_ / "a.json");
  fs::create_symlink(target, dir_ / "b.json");
  EXPECT_TRUE(SameFile(dir_ / "a.json", dir_ / "b.json"));
  EXPECT_TRUE(SameFile(dir_ / "a.json", target));
  EXPECT_TRUE(SameFile(target, dir_ / "." / "target.json"));
  std::ofstream(dir_ / "other.json") << "y";
  EXPECT_FALSE(SameFile(target, dir_ / "other.json"));
  // Neither exists yet: the same name after links is the same file.
  fs::create_symlink("new.json", dir_ / "c.json");
  EXPECT_TRUE(SameFile(dir_ / "c.json", dir_ / "new.json"));
  EXPECT_FALSE(SameFile(dir_ / "c.json", dir_ / "absent.json"));
}

TEST_F(OutputFileTest, WithinTreeFollowsLinksOnBothSides) {
  const fs::path tree = dir_ / "tree";
  fs::create_directories(tree / "sys");
  fs::create_directories(dir_ / "elsewhere");
  EXPECT_TRUE(WithinTree(tree / "sys" / "new.json", tree));
  EXPECT_TRUE(WithinTree(tree / "." / "x.json", tree.string() + "/"));
  EXPECT_TRUE(WithinTree(tree, tree));
  EXPECT_FALSE(WithinTree(dir_ / "tree-sibling.json", tree)) << "a shared prefix is not inside";
  EXPECT_FALSE(WithinTree(dir_ / "elsewhere" / "x.json", tree));
  EXPECT_FALSE(WithinTree("-", tree));
  // A link outside that points inside, and a folder link into the tree.
  fs::create_symlink(tree / "sys" / "target.json", dir_ / "out.json");
  EXPECT_TRUE(WithinTree(dir_ / "out.json", tree));
  fs::create_directory_symlink(tree / "sys", dir_ / "sys-link");
  EXPECT_TRUE(WithinTree(dir_ / "sys-link" / "y.json", tree));
  // The tree given through a link.
  fs::create_directory_symlink(tree, dir_ / "tree-link");
  EXPECT_TRUE(WithinTree(tree / "sys" / "z.json", dir_ / "tree-link"));
}

}  // namespace
}  // namespace xfer
