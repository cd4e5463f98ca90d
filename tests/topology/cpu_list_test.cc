// The CPU list syntax of taskset, sysfs and perftest's --pin_cores.
#include "topology/cpu_list.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace xfer::topology {
namespace {

TEST(CpuList, ParsesSinglesListsRangesAndMixes) {
  EXPECT_EQ(*ParseCpuList("0"), (std::vector<int>{0}));
  EXPECT_EQ(*ParseCpuList("0, 1, 2"), (std::vector<int>{0, 1, 2}));  // perftest's help
  EXPECT_EQ(*ParseCpuList("0-3"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(*ParseCpuList("12-15,0-3,8"),
            (std::vector<int>{0, 1, 2, 3, 8, 12, 13, 14, 15}));  // sorted
  EXPECT_EQ(*ParseCpuList("3,3,2-3"), (std::vector<int>{2, 3}));   // each once
  EXPECT_EQ(*ParseCpuList("1023"), (std::vector<int>{1023}));
}

TEST(CpuList, RefusesWhatIsNoListNamingThePart) {
  const std::pair<const char*, const char*> bad[] = {
      {"", "'' is no CPU number or range"},
      {"a", "'a' is no CPU number or range"},
      {"1,,2", "'' is no CPU number or range"},
      {"-1", "'-1' is no CPU number or range"},
      {"0-", "'0-' is no CPU number or range"},
      {"1-0", "'1-0' ends below where it starts"},
      {"0-1024", "CPU 1024 is above the most this build takes (1023)"},
      {"4294967296", "'4294967296' is no CPU number or range"},
  };
  for (const auto& [text, message] : bad) {
    auto parsed = ParseCpuList(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(), message) << text;
  }
}

TEST(CpuList, FormatsTheShortestList) {
  EXPECT_EQ(FormatCpuList({0, 1, 2, 3, 8, 12, 13}), "0-3,8,12-13");
  EXPECT_EQ(FormatCpuList({5}), "5");
  EXPECT_EQ(FormatCpuList({}), "");
  EXPECT_EQ(FormatCpuList(*ParseCpuList("0-3,8,12-15")), "0-3,8,12-15");
}

}  // namespace
}  // namespace xfer::topology
