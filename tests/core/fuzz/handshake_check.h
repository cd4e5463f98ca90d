// The engine handshake's decoders (src/core/handshake.h), and the rails'
// recovery messages that follow it on the control connection
// (src/core/rail_recovery.h), against hostile bytes: shared by handshake_fuzzer.cc and tests/core/fuzz_regression_test.cc.
// The first input byte picks the decoder (modulo kHandshakeDecoders), the rest
// is the message; a new decoder takes the next selector value.
#ifndef XFER_TESTS_CORE_FUZZ_HANDSHAKE_CHECK_H_
#define XFER_TESTS_CORE_FUZZ_HANDSHAKE_CHECK_H_

#include <cstdint>
#include <span>
#include <string>

#include "core/handshake.h"
#include "core/rail_recovery.h"
#include "support/fuzz_check.h"

namespace xfer::fuzz {

enum class HandshakeDecoder : uint8_t {
  kHello = 0,
  kHelloReply,
  kAuthOffer,
  kAuthChallenge,
  kRailMessage
};
inline constexpr uint8_t kHandshakeDecoders = 5;

// DecodeRailMessage on a connection of the most rails; a message that is
// not the protocol's (which the recovery skips) counts as refused.
inline Result<core::RailMessage> DecodeAnyRailMessage(std::span<const uint8_t> bytes) {
  auto message = core::DecodeRailMessage(bytes, static_cast<uint32_t>(core::RailStriper::kMaxRails));
  if (!message.ok()) return message.status();
  if (!message->has_value()) return ProtocolError("not a rail recovery message");
  return std::move(**message);
}

inline std::string CheckHandshakeInput(std::span<const uint8_t> input) {
  if (input.empty()) return "";
  const std::span<const uint8_t> message = input.subspan(1);
  using namespace xfer::core;
  switch (static_cast<HandshakeDecoder>(input[0] % kHandshakeDecoders)) {
    case HandshakeDecoder::kHello:
      // Not canonical: the decoder sorts the region table by address.
      return CheckRoundTrip("Hello", message, DecodeHello, EncodeHello);
    case HandshakeDecoder::kHelloReply:
      return CheckRoundTrip("HelloReply", message, DecodeHelloReply, EncodeHelloReply);
    case HandshakeDecoder::kAuthOffer:
      return CheckRoundTrip("AuthOffer", message, DecodeAuthOffer, EncodeAuthOffer,
                            /*canonical=*/true);
    case HandshakeDecoder::kAuthChallenge:
      return CheckRoundTrip("AuthChallenge", message, DecodeAuthChallenge, EncodeAuthChallenge,
                            /*canonical=*/true);
    case HandshakeDecoder::kRailMessage:
      return CheckRoundTrip("RailMessage", message, DecodeAnyRailMessage, EncodeRailMessage,
                            /*canonical=*/true);
  }
  return "";
}

}  // namespace xfer::fuzz

#endif  // XFER_TESTS_CORE_FUZZ_HANDSHAKE_CHECK_H_
