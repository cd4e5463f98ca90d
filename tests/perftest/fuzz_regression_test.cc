// Replays every seed and past finding of the perftest_wire fuzz target
// (tests/perftest/fuzz/corpus, tests/perftest/fuzz/regressions) through the same check the target runs
// (perftest/fuzz/perftest_wire_check.h), so that a regression shows in the ordinary suite without
// libFuzzer: each input must be refused with kProtocolError or decode into a
// message that round-trips.
#include <gtest/gtest.h>

#include "perftest/fuzz/perftest_wire_check.h"

namespace {

TEST(PerftestWireFuzzRegression, EveryRecordedInputHoldsTheDecoderContract) {
  const auto inputs = xfer::fuzz::ReadFuzzInputs(XFER_SOURCE_DIR "/tests/perftest/fuzz");
  ASSERT_FALSE(inputs.empty()) << "no seeds under tests/perftest/fuzz/corpus";
  for (const auto& input : inputs) {
    EXPECT_EQ(xfer::fuzz::CheckPerftestWireInput(input.bytes), "") << input.path;
  }
}

}  // namespace
