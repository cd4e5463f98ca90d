// The receive re-posting rule shared by every send test's receive side.
#include "bench/model/receive_refill.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace xfer::bench {
namespace {

// Iteration mode: pre-posting and replacing together post exactly as many
// receives as messages will arrive, so none is left for the next size.
TEST(ReceiveRefill, IterationModePostsExactlyTheMessagesExpected) {
  ReceiveRefill refill(/*needed=*/10);
  uint64_t pre_posted = 0;
  while (pre_posted < 4 && refill.TakeOne()) ++pre_posted;  // rx_depth 4
  EXPECT_EQ(pre_posted, 4u);
  uint64_t replaced = 0;
  for (int received = 0; received < 10; ++received) replaced += refill.TakeOne() ? 1u : 0u;
  EXPECT_EQ(replaced, 6u);
  EXPECT_EQ(refill.posted(), 10u);
  EXPECT_FALSE(refill.TakeOne());
}

TEST(ReceiveRefill, ReceivesPostedElsewhereCountAgainstTheNeed) {
  // The verbs path pre-posts rx_depth receives before the barrier.
  ReceiveRefill refill(/*needed=*/5, /*already_posted=*/5);
  EXPECT_FALSE(refill.TakeOne());
  ReceiveRefill deeper(/*needed=*/6, /*already_posted=*/5);
  EXPECT_TRUE(deeper.TakeOne());
  EXPECT_FALSE(deeper.TakeOne());
  EXPECT_EQ(deeper.posted(), 6u);
}

TEST(ReceiveRefill, DurationModeReplacesEveryReceive) {
  ReceiveRefill refill(ReceiveRefill::kUnbounded, /*already_posted=*/512);
  for (int received = 0; received < 100'000; ++received) ASSERT_TRUE(refill.TakeOne());
  EXPECT_EQ(refill.posted(), 512u + 100'000u);
}

}  // namespace
}  // namespace xfer::bench
