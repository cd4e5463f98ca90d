// The byte layout of the matrix control messages (control_channel.h), as
// pure functions, so every decoder can be tested (and fuzzed) on its own.
// A message is: u32 magic "XFMX", u8 type, then the type's fields, all
// little-endian (common/wire.h). Decoders take untrusted bytes: a short,
// oversized or trailing field is kProtocolError, never a bad read.
#ifndef XFER_BENCH_MATRIX_CONTROL_MESSAGES_H_
#define XFER_BENCH_MATRIX_CONTROL_MESSAGES_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bench/matrix/control_channel.h"

namespace xfer::matrix {

enum class ControlType : uint8_t {
  kHello = 1,
  kHelloReply,
  kBufferRequest,
  kBufferReply,
  kHeartbeat,
  kDone,
  kAbort,
};

// "XFMX": the first word of every message.
inline constexpr uint32_t kControlMagic = 0x584D4658;

// Upper bounds a decoder enforces.
inline constexpr size_t kMaxControlMessage = 64 * 1024;
inline constexpr size_t kMaxControlString = 1024;
inline constexpr size_t kMaxControlList = 64;

std::vector<uint8_t> EncodeHello(const Hello& hello);
std::vector<uint8_t> EncodeHelloReply(const HelloReply& reply);
std::vector<uint8_t> EncodeBufferRequest(const BufferRequest& request);
std::vector<uint8_t> EncodeBufferReply(const BufferReply& reply);
std::vector<uint8_t> EncodeBare(ControlType type);  // heartbeat, done
std::vector<uint8_t> EncodeAbort(const std::string& reason);

// The type of a whole message (header checked), and the rest of it, a view
// into the message passed to DecodeFrame.
struct ControlFrame {
  ControlType type = ControlType::kHeartbeat;
  std::span<const uint8_t> body;
};
Result<ControlFrame> DecodeFrame(std::span<const uint8_t> message);

// Each decodes a frame body of its type.
Result<Hello> DecodeHello(std::span<const uint8_t> body);
Result<HelloReply> DecodeHelloReply(std::span<const uint8_t> body);
Result<BufferRequest> DecodeBufferRequest(std::span<const uint8_t> body);
Result<BufferReply> DecodeBufferReply(std::span<const uint8_t> body);
Result<std::string> DecodeAbort(std::span<const uint8_t> body);

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_CONTROL_MESSAGES_H_
