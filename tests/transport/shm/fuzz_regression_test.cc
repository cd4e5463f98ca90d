// Replays every seed and past finding of the shm fuzz target
// (tests/transport/shm/fuzz/corpus, tests/transport/shm/fuzz/regressions) through the same check the target runs
// (transport/shm/fuzz/shm_check.h), so that a regression shows in the ordinary suite without
// libFuzzer: each input must be refused with kProtocolError or decode into a
// message that round-trips.
#include <gtest/gtest.h>

#include "transport/shm/fuzz/shm_check.h"

namespace {

TEST(ShmFuzzRegression, EveryRecordedInputHoldsTheDecoderContract) {
  const auto inputs = xfer::fuzz::ReadFuzzInputs(XFER_SOURCE_DIR "/tests/transport/shm/fuzz");
  ASSERT_FALSE(inputs.empty()) << "no seeds under tests/transport/shm/fuzz/corpus";
  for (const auto& input : inputs) {
    EXPECT_EQ(xfer::fuzz::CheckShmInput(input.bytes), "") << input.path;
  }
}

}  // namespace
