// RailWatchdog: a rail is silent when posts are in flight and nothing has
// completed (or started from idle) for longer than the timeout; an idle
// rail never is, and a completion is progress whatever is still queued.
#include "core/rail_watchdog.h"

#include <gtest/gtest.h>

namespace xfer::core {
namespace {

constexpr uint64_t kMs = 1'000'000;

TEST(RailWatchdogTest, AnIdleRailIsNeverSilent) {
  RailWatchdog watchdog(2);
  const uint64_t later = RailWatchdog::Now() + 3600'000 * kMs;
  EXPECT_FALSE(watchdog.Silent(0, later, 10 * kMs));
  EXPECT_EQ(watchdog.SilentFor(0, later), 0u);
  watchdog.Posted(0);
  watchdog.Finished(0, RailWatchdog::Now());
  EXPECT_FALSE(watchdog.Silent(0, later, 10 * kMs));
}

TEST(RailWatchdogTest, APostNothingFinishesBecomesSilentAfterTheTimeout) {
  RailWatchdog watchdog(2);
  const uint64_t posted = RailWatchdog::Now();
  watchdog.Posted(1);
  EXPECT_FALSE(watchdog.Silent(1, posted + 5 * kMs, 10 * kMs));
  EXPECT_TRUE(watchdog.Silent(1, posted + 1000 * kMs, 10 * kMs));
  EXPECT_GE(watchdog.SilentFor(1, posted + 1000 * kMs), 990 * kMs);
  EXPECT_FALSE(watchdog.Silent(0, posted + 1000 * kMs, 10 * kMs)) << "another rail";
}

// Three posts queued; one completes late: the rail made progress then,
// though two are still in flight, and only silence from then on counts.
TEST(RailWatchdogTest, ACompletionIsProgressWhateverStillQueues) {
  RailWatchdog watchdog(1);
  const uint64_t start = RailWatchdog::Now();
  for (int i = 0; i < 3; ++i) watchdog.Posted(0);
  watchdog.Finished(0, start + 500 * kMs);
  EXPECT_FALSE(watchdog.Silent(0, start + 505 * kMs, 10 * kMs));
  EXPECT_TRUE(watchdog.Silent(0, start + 520 * kMs, 10 * kMs));
  watchdog.Finished(0, start + 530 * kMs);
  watchdog.Finished(0, start + 540 * kMs);
  EXPECT_FALSE(watchdog.Silent(0, start + 9000 * kMs, 10 * kMs)) << "idle again";
}

// A post the transport refused leaves nothing in flight.
TEST(RailWatchdogTest, AnUnpostedPostLeavesTheRailIdle) {
  RailWatchdog watchdog(1);
  watchdog.Posted(0);
  watchdog.Unposted(0);
  EXPECT_FALSE(watchdog.Silent(0, RailWatchdog::Now() + 1000 * kMs, 10 * kMs));
}

}  // namespace
}  // namespace xfer::core
