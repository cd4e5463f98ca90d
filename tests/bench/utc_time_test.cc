// bench/utc_time.h: the timestamps of run documents and rail events.
#include "bench/utc_time.h"

#include <gtest/gtest.h>

#include <chrono>

namespace xfer::bench {
namespace {

using namespace std::chrono_literals;

TEST(UtcTimeTest, FractionsOfTheSecondAreCutNotRounded) {
  const auto at = std::chrono::system_clock::time_point(1'800'000'001s + 500'007us + 999ns);
  EXPECT_EQ(UtcTime(at, 6), "2027-01-15T08:00:01.500007Z");
  EXPECT_EQ(UtcTime(at, 3), "2027-01-15T08:00:01.500Z");
  EXPECT_EQ(UtcTime(std::chrono::system_clock::time_point(1'800'000'000s + 7ms), 3),
            "2027-01-15T08:00:00.007Z");
}

}  // namespace
}  // namespace xfer::bench
