// Every unreadable value is unknown with its reason, never a default.
#include "topology/sysfs_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace xfer::topology {
namespace {

namespace fs = std::filesystem;

class SysfsReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("doctor_sysfs_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "sys/class/net/eth0");
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const std::string& relative, const std::string& text) {
    std::ofstream(root_ / relative) << text;
  }
  fs::path root_;
};

TEST_F(SysfsReaderTest, ReadsAValueUnderTheRoot) {
  Write("sys/class/net/eth0/speed", "25000\n");
  Write("sys/class/net/eth0/vendor", "0x15b3\n");
  const SysfsReader sysfs(root_);
  EXPECT_EQ(sysfs.ReadInteger("/sys/class/net/eth0/speed").value, 25000);
  EXPECT_EQ(sysfs.ReadInteger("/sys/class/net/eth0/vendor").value, 0x15b3);
}

TEST_F(SysfsReaderTest, MissingFileIsUnknownNamingIt) {
  const Reading<int64_t> speed = SysfsReader(root_).ReadInteger("/sys/class/net/eth0/speed");
  ASSERT_FALSE(speed.known());
  EXPECT_EQ(speed.unknown_reason, "/sys/class/net/eth0/speed is missing");
}

TEST_F(SysfsReaderTest, MinusOneIsUnknown) {
  Write("sys/class/net/eth0/speed", "-1\n");
  const Reading<int64_t> speed = SysfsReader(root_).ReadInteger("/sys/class/net/eth0/speed");
  ASSERT_FALSE(speed.known());
  EXPECT_NE(speed.unknown_reason.find("reads -1"), std::string::npos) << speed.unknown_reason;
}

TEST_F(SysfsReaderTest, NotANumberAndEmptyAreUnknown) {
  Write("sys/class/net/eth0/speed", "fast\n");
  Write("sys/class/net/eth0/mtu", "\n");
  const SysfsReader sysfs(root_);
  EXPECT_NE(sysfs.ReadInteger("/sys/class/net/eth0/speed").unknown_reason.find("'fast', not a number"),
            std::string::npos);
  EXPECT_NE(sysfs.ReadText("/sys/class/net/eth0/mtu").unknown_reason.find("is empty"), std::string::npos);
}

TEST_F(SysfsReaderTest, DirectoryReadAsFileIsUnknown) {
  fs::create_directories(root_ / "sys/class/net/eth0/speed");
  const Reading<std::string> speed = SysfsReader(root_).ReadText("/sys/class/net/eth0/speed");
  ASSERT_FALSE(speed.known());
  EXPECT_NE(speed.unknown_reason.find("/sys/class/net/eth0/speed"), std::string::npos);
  EXPECT_NE(speed.unknown_reason.find("directory"), std::string::npos) << speed.unknown_reason;
}

// A down netdev's speed fails read() with EINVAL. A regular file cannot do
// that, so the tree links to a live file that does (loopback's speed).
TEST_F(SysfsReaderTest, EinvalSpeedIsUnknownSayingSo) {
  const fs::path live = "/sys/class/net/lo/speed";
  if (!fs::exists(live) || SysfsReader("/").ReadText(live.string()).known()) {
    GTEST_SKIP() << live << " is absent or readable here, so no EINVAL to record";
  }
  fs::create_symlink(live, root_ / "sys/class/net/eth0/speed");
  const Reading<int64_t> speed = SysfsReader(root_).ReadInteger("/sys/class/net/eth0/speed");
  ASSERT_FALSE(speed.known());
  EXPECT_NE(speed.unknown_reason.find("EINVAL"), std::string::npos) << speed.unknown_reason;
}

TEST(SysfsPaths, ParentAndBase) {
  EXPECT_EQ(ParentPath("/a/b"), "/a");
  EXPECT_EQ(ParentPath("/"), "/");
  EXPECT_EQ(BaseName("/a/b"), "b");
}

}  // namespace
}  // namespace xfer::topology
