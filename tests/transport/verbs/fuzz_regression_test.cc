// Replays every seed and past finding of the verbs_setup fuzz target
// (tests/transport/verbs/fuzz/corpus, tests/transport/verbs/fuzz/regressions) through the same check the target runs
// (transport/verbs/fuzz/setup_message_check.h), so that a regression shows in the ordinary suite without
// libFuzzer: each input must be refused with kProtocolError or decode into a
// message that round-trips.
#include <gtest/gtest.h>

#include "transport/verbs/fuzz/setup_message_check.h"

namespace {

TEST(VerbsSetupFuzzRegression, EveryRecordedInputHoldsTheDecoderContract) {
  const auto inputs = xfer::fuzz::ReadFuzzInputs(XFER_SOURCE_DIR "/tests/transport/verbs/fuzz");
  ASSERT_FALSE(inputs.empty()) << "no seeds under tests/transport/verbs/fuzz/corpus";
  for (const auto& input : inputs) {
    EXPECT_EQ(xfer::fuzz::CheckVerbsSetupInput(input.bytes), "") << input.path;
  }
}

}  // namespace
