#include "common/host_memory.h"

#include <gtest/gtest.h>

namespace xfer {
namespace {

TEST(HostMemoryTest, ParsesMemAvailableInKibibytes) {
  EXPECT_EQ(ParseMemAvailable("MemTotal:       24683772 kB\nMemFree: 1 kB\n"
                              "MemAvailable:   24054796 kB\nBuffers: 2 kB\n"),
            uint64_t{24054796} * 1024);
  EXPECT_EQ(ParseMemAvailable("MemAvailable: 7 kB"), uint64_t{7} * 1024);
  EXPECT_FALSE(ParseMemAvailable("MemTotal: 5 kB\n").has_value());
  EXPECT_FALSE(ParseMemAvailable("MemAvailable: lots\n").has_value());
  EXPECT_FALSE(ParseMemAvailable("MemAvailable: 5\n").has_value()) << "no unit";
  EXPECT_FALSE(ParseMemAvailable("XMemAvailable: 5 kB\n").has_value());
  EXPECT_FALSE(ParseMemAvailable("MemAvailable: 99999999999999999999 kB\n").has_value());
}

TEST(HostMemoryTest, RefusesWhatTheSmallerLimitCannotBack) {
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  const HostMemory host{8 * kGiB, std::nullopt};
  EXPECT_TRUE(CheckHostCanBack(8 * kGiB, "host memory", host).ok());
  Status refused = CheckHostCanBack(8 * kGiB + 1, "host memory", host);
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(refused.message(),
            "cannot allocate 8589934593 bytes (8.0 GiB) of host memory: this host has 8.0 GiB "
            "available (MemAvailable)");

  const HostMemory limited{8 * kGiB, 2 * kGiB};
  Status cgroup = CheckHostCanBack(3 * kGiB, "host memory", limited);
  EXPECT_EQ(cgroup.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(cgroup.message().find("memory cgroup allows 2.0 GiB"), std::string::npos)
      << cgroup.message();
  EXPECT_TRUE(CheckHostCanBack(2 * kGiB, "host memory", limited).ok());

  EXPECT_TRUE(CheckHostCanBack(uint64_t{1} << 50, "host memory", HostMemory{}).ok())
      << "nothing known, nothing refused: mmap decides";
  EXPECT_FALSE(ReadHostMemory().available.value_or(0) == 0) << "this host has /proc/meminfo";
}

}  // namespace
}  // namespace xfer
