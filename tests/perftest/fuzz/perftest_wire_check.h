// perftest's out-of-band messages and its parameter negotiation
// (src/perftest/wire_format.h, negotiation.h) against hostile bytes: shared
// by perftest_wire_fuzzer.cc and tests/perftest/fuzz_regression_test.cc. The
// first input byte picks the decoder (modulo kPerftestDecoders), the rest is
// the message.
#ifndef XFER_TESTS_PERFTEST_FUZZ_PERFTEST_WIRE_CHECK_H_
#define XFER_TESTS_PERFTEST_FUZZ_PERFTEST_WIRE_CHECK_H_

#include <cstdint>
#include <span>
#include <string>

#include "perftest/negotiation.h"
#include "perftest/wire_format.h"
#include "support/fuzz_check.h"

namespace xfer::fuzz {

enum class PerftestDecoder : uint8_t {
  kVersion = 0,
  kInt32,
  kMtu,
  kKeyMessage,
  kKeyMessageWithGid,
  kU64,
  kDouble,
  kNegotiation,
};
inline constexpr uint8_t kPerftestDecoders = 8;

inline std::string CheckPerftestWireInput(std::span<const uint8_t> input) {
  using namespace xfer::perftest;
  if (input.empty()) return "";
  const std::span<const uint8_t> message = input.subspan(1);
  switch (static_cast<PerftestDecoder>(input[0] % kPerftestDecoders)) {
    case PerftestDecoder::kVersion:
      // Not canonical: bytes after the first NUL are ignored.
      return CheckRoundTrip("perftest version", message, DecodeVersion,
                            [](const PeerVersion& version) { return EncodeVersion(version.text); });
    case PerftestDecoder::kInt32:
      return CheckRoundTrip("perftest system data", message, DecodeInt32, EncodeInt32, true);
    case PerftestDecoder::kMtu:
      return CheckRoundTrip("perftest MTU", message, DecodeMtu,
                            [size = message.size()](int code) { return EncodeMtu(code, size); });
    case PerftestDecoder::kKeyMessage:
    case PerftestDecoder::kKeyMessageWithGid: {
      const bool with_gid = input[0] % kPerftestDecoders ==
                            static_cast<uint8_t>(PerftestDecoder::kKeyMessageWithGid);
      return CheckRoundTrip(
          "perftest key message", message,
          [with_gid](std::span<const uint8_t> bytes) { return DecodeKeyMessage(bytes, with_gid); },
          EncodeKeyMessage);
    }
    case PerftestDecoder::kU64:
      return CheckRoundTrip("perftest report u64", message, DecodeU64, EncodeU64, true);
    case PerftestDecoder::kDouble:
      return CheckRoundTrip("perftest report double", message, DecodeDouble, EncodeDouble, true);
    case PerftestDecoder::kNegotiation:
      // Not canonical: the fields perftest does not compare travel as zero.
      return CheckRoundTrip("perftest negotiation", message, DecodeNegotiation, EncodeNegotiation);
  }
  return "";
}

}  // namespace xfer::fuzz

#endif  // XFER_TESTS_PERFTEST_FUZZ_PERFTEST_WIRE_CHECK_H_
