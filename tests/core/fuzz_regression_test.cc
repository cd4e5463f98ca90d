// Replays every seed and past finding of the handshake fuzz target
// (tests/core/fuzz/corpus, tests/core/fuzz/regressions) through the same check the target runs
// (core/fuzz/handshake_check.h), so that a regression shows in the ordinary suite without
// libFuzzer: each input must be refused with kProtocolError or decode into a
// message that round-trips.
#include <gtest/gtest.h>

#include "core/fuzz/handshake_check.h"

namespace {

TEST(HandshakeFuzzRegression, EveryRecordedInputHoldsTheDecoderContract) {
  const auto inputs = xfer::fuzz::ReadFuzzInputs(XFER_SOURCE_DIR "/tests/core/fuzz");
  ASSERT_FALSE(inputs.empty()) << "no seeds under tests/core/fuzz/corpus";
  for (const auto& input : inputs) {
    EXPECT_EQ(xfer::fuzz::CheckHandshakeInput(input.bytes), "") << input.path;
  }
}

}  // namespace
