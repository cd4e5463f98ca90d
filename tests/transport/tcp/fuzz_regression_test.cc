// Replays every seed and past finding of the tcp_frame fuzz target
// (tests/transport/tcp/fuzz/corpus, tests/transport/tcp/fuzz/regressions) through the same check the target runs
// (transport/tcp/fuzz/frame_check.h), so that a regression shows in the ordinary suite without
// libFuzzer: each input must be refused with kProtocolError or decode into a
// message that round-trips.
#include <gtest/gtest.h>

#include "transport/tcp/fuzz/frame_check.h"

namespace {

TEST(TcpFrameFuzzRegression, EveryRecordedInputHoldsTheDecoderContract) {
  const auto inputs = xfer::fuzz::ReadFuzzInputs(XFER_SOURCE_DIR "/tests/transport/tcp/fuzz");
  ASSERT_FALSE(inputs.empty()) << "no seeds under tests/transport/tcp/fuzz/corpus";
  for (const auto& input : inputs) {
    EXPECT_EQ(xfer::fuzz::CheckTcpFrameInput(input.bytes), "") << input.path;
  }
}

}  // namespace
