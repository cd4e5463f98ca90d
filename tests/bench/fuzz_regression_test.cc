// Replays every seed and past finding of the bench_messages fuzz target
// (tests/bench/fuzz/corpus, tests/bench/fuzz/regressions) through the same check the target runs
// (bench/fuzz/bench_messages_check.h), so that a regression shows in the ordinary suite without
// libFuzzer: each input must be refused with kProtocolError or decode into a
// message that round-trips.
#include <gtest/gtest.h>

#include "bench/fuzz/bench_messages_check.h"

namespace {

TEST(BenchMessagesFuzzRegression, EveryRecordedInputHoldsTheDecoderContract) {
  const auto inputs = xfer::fuzz::ReadFuzzInputs(XFER_SOURCE_DIR "/tests/bench/fuzz");
  ASSERT_FALSE(inputs.empty()) << "no seeds under tests/bench/fuzz/corpus";
  for (const auto& input : inputs) {
    EXPECT_EQ(xfer::fuzz::CheckBenchMessageInput(input.bytes), "") << input.path;
  }
}

}  // namespace
