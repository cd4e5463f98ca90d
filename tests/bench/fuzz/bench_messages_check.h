// The benchmark's out-of-band messages (src/bench/oob_channel.h) and the
// matrix control messages (src/bench/matrix/control_messages.h) against
// hostile bytes: shared by bench_messages_fuzzer.cc and
// tests/bench/fuzz_regression_test.cc. The first input byte picks the
// decoder (modulo kBenchDecoders), the rest is one whole message as its
// channel receives it.
#ifndef XFER_TESTS_BENCH_FUZZ_BENCH_MESSAGES_CHECK_H_
#define XFER_TESTS_BENCH_FUZZ_BENCH_MESSAGES_CHECK_H_

#include <cstdint>
#include <span>
#include <string>

#include "bench/matrix/control_messages.h"
#include "bench/oob_channel.h"
#include "support/fuzz_check.h"

namespace xfer::fuzz {

enum class BenchDecoder : uint8_t {
  kOobSetup = 0,
  kOobSetupReply,
  kOobBarrier,
  kOobBwResult,
  kOobLatResult,
  kOobLatDurationResult,
  kMatrixControl,
};
inline constexpr uint8_t kBenchDecoders = 7;

// DecodeFrame, then the decoder of `type` on the body; other types refused.
template <typename Decode>
auto DecodeMatrixMessage(std::span<const uint8_t> message, matrix::ControlType type, Decode decode)
    -> decltype(decode(message)) {
  auto frame = matrix::DecodeFrame(message);
  if (!frame.ok()) return frame.status();
  if (frame->type != type) return ProtocolError("another message type");
  return decode(frame->body);
}

inline std::string CheckMatrixControlMessage(std::span<const uint8_t> message) {
  using namespace xfer::matrix;
  auto frame = DecodeFrame(message);
  if (!frame.ok()) return CheckRefusal("matrix control frame", frame.status());
  auto as = [](ControlType type, auto decode) {
    return [type, decode](std::span<const uint8_t> bytes) {
      return DecodeMatrixMessage(bytes, type, decode);
    };
  };
  switch (frame->type) {
    case ControlType::kHello:
      return CheckRoundTrip("matrix Hello", message, as(ControlType::kHello, DecodeHello),
                            EncodeHello);
    case ControlType::kHelloReply:
      return CheckRoundTrip("matrix HelloReply", message,
                            as(ControlType::kHelloReply, DecodeHelloReply), EncodeHelloReply);
    case ControlType::kBufferRequest:
      return CheckRoundTrip("matrix BufferRequest", message,
                            as(ControlType::kBufferRequest, DecodeBufferRequest),
                            EncodeBufferRequest);
    case ControlType::kBufferReply:
      return CheckRoundTrip("matrix BufferReply", message,
                            as(ControlType::kBufferReply, DecodeBufferReply), EncodeBufferReply);
    case ControlType::kAbort:
      return CheckRoundTrip("matrix Abort", message, as(ControlType::kAbort, DecodeAbort),
                            EncodeAbort);
    case ControlType::kHeartbeat:
    case ControlType::kDone:
      return "";  // no body: the channel reads nothing past the type
  }
  return "";
}

inline std::string CheckBenchMessageInput(std::span<const uint8_t> input) {
  using namespace xfer::bench;
  if (input.empty()) return "";
  const std::span<const uint8_t> message = input.subspan(1);
  switch (static_cast<BenchDecoder>(input[0] % kBenchDecoders)) {
    case BenchDecoder::kOobSetup:
      return CheckRoundTrip("oob Setup", message, DecodeSetupMessage, EncodeSetupMessage, true);
    case BenchDecoder::kOobSetupReply:
      // Not canonical: any accepted byte other than 1 reads as "refused".
      return CheckRoundTrip("oob SetupReply", message, DecodeSetupReplyMessage,
                            EncodeSetupReplyMessage);
    case BenchDecoder::kOobBarrier:
      return CheckRoundTrip("oob Barrier", message, DecodeBarrierMessage, EncodeBarrierMessage,
                            true);
    case BenchDecoder::kOobBwResult:
      return CheckRoundTrip("oob BwResult", message, DecodeBwResultMessage, EncodeBwResultMessage,
                            true);
    case BenchDecoder::kOobLatResult:
      return CheckRoundTrip("oob LatResult", message, DecodeLatResultMessage,
                            EncodeLatResultMessage, true);
    case BenchDecoder::kOobLatDurationResult:
      return CheckRoundTrip("oob LatDurationResult", message, DecodeLatDurationResultMessage,
                            EncodeLatDurationResultMessage, true);
    case BenchDecoder::kMatrixControl:
      return CheckMatrixControlMessage(message);
  }
  return "";
}

}  // namespace xfer::fuzz

#endif  // XFER_TESTS_BENCH_FUZZ_BENCH_MESSAGES_CHECK_H_
