// The verbs transport's setup messages (src/transport/verbs/setup_message.h)
// against hostile bytes: shared by setup_message_fuzzer.cc and
// tests/transport/verbs/fuzz_regression_test.cc. The whole input is one
// message as DecodePeerMessage receives it.
#ifndef XFER_TESTS_TRANSPORT_VERBS_FUZZ_SETUP_MESSAGE_CHECK_H_
#define XFER_TESTS_TRANSPORT_VERBS_FUZZ_SETUP_MESSAGE_CHECK_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "support/fuzz_check.h"
#include "transport/verbs/setup_message.h"

namespace xfer::fuzz {

inline std::string CheckVerbsSetupInput(std::span<const uint8_t> input) {
  using namespace xfer::transport::verbs;
  auto encode = [](const PeerMessage& message) {
    return message.kind == MessageKind::kSetup ? EncodeSetup(message.setup)
                                               : EncodeVerdict(message.verdict);
  };
  return CheckRoundTrip("verbs setup message", input, DecodePeerMessage, encode);
}

}  // namespace xfer::fuzz

#endif  // XFER_TESTS_TRANSPORT_VERBS_FUZZ_SETUP_MESSAGE_CHECK_H_
