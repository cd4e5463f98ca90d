// The tcp transport's data-stream framing against hostile bytes: shared by
// frame_fuzzer.cc and tests/transport/tcp/fuzz_regression_test.cc.
//
// Input: u8 selector, then
//   selector even: one frame header (its first kFrameHeaderSize bytes) for
//                  DecodeFrameHeader, which has one encoding per header;
//   selector odd:  u8 reader capacity beyond a header, then a data stream as
//                  the peer sends it (headers and payloads), written to a
//                  socketpair and read back by a FrameReader. Each header
//                  the reader yields must be the bytes at that point of the
//                  stream, and the stream may end only with a refusal
//                  (kProtocolError) or the end of the bytes.
#ifndef XFER_TESTS_TRANSPORT_TCP_FUZZ_FRAME_CHECK_H_
#define XFER_TESTS_TRANSPORT_TCP_FUZZ_FRAME_CHECK_H_

#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>

#include "common/socket.h"
#include "support/fuzz_check.h"
#include "transport/tcp/frame.h"
#include "transport/tcp/frame_reader.h"

namespace xfer::fuzz {

// Larger streams add nothing the fuzzer could not reach with smaller ones,
// and must fit a socketpair's buffer whole.
inline constexpr size_t kMaxTcpStreamBytes = 64 << 10;

inline std::string CheckTcpFrameHeader(std::span<const uint8_t> bytes) {
  using namespace xfer::transport::tcp;
  if (bytes.size() < kFrameHeaderSize) return "";
  return CheckRoundTrip(
      "tcp frame header", bytes.first(kFrameHeaderSize),
      [](std::span<const uint8_t> header) {
        if (header.size() != kFrameHeaderSize) return Result<FrameHeader>(ProtocolError("size"));
        return DecodeFrameHeader(std::span<const uint8_t, kFrameHeaderSize>(header.data(),
                                                                            kFrameHeaderSize));
      },
      EncodeFrameHeader, /*canonical=*/true);
}

inline std::string CheckTcpFrameStream(size_t extra_capacity, std::span<const uint8_t> stream) {
  using namespace xfer::transport::tcp;
  stream = stream.first(std::min(stream.size(), kMaxTcpStreamBytes));
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) != 0) {
    return "";  // out of descriptors: not the parser's fault
  }
  Socket writer{UniqueFd(fds[0])};
  Socket reader_socket{UniqueFd(fds[1])};
  if (!stream.empty() &&
      !writer.SendAll(stream.data(), stream.size(), Deadline::After(std::chrono::seconds(1))).ok()) {
    return "";
  }
  writer.Shutdown();
  FrameReader reader(reader_socket, kFrameHeaderSize + extra_capacity);
  size_t offset = 0;  // where the next header starts in `stream`
  for (;;) {
    auto header = reader.Next();
    if (!header.ok()) return CheckRefusal("tcp frame stream", header.status());
    if (!header->has_value()) {
      auto filled = reader.Fill();
      if (!filled.ok() || !*filled) {
        if (stream.size() - offset >= kFrameHeaderSize) {
          return "tcp frame stream: the reader stopped with a whole header unread";
        }
        return "";
      }
      continue;
    }
    if (stream.size() - offset < kFrameHeaderSize) {
      return "tcp frame stream: the reader yielded a header the stream does not hold";
    }
    const FrameBytes encoded = EncodeFrameHeader(**header);
    if (!std::equal(encoded.begin(), encoded.end(), stream.begin() + static_cast<std::ptrdiff_t>(offset))) {
      return "tcp frame stream: the reader yielded other fields than the stream holds";
    }
    offset += kFrameHeaderSize;
    const uint64_t payload = PayloadLength(**header);
    if (payload > stream.size() - offset) return "";  // the stream ends inside the payload
    if (!reader.ReadPayload(nullptr, payload, std::chrono::milliseconds(100)).ok()) {
      return "tcp frame stream: a payload the stream holds could not be read";
    }
    offset += static_cast<size_t>(payload);
  }
}

inline std::string CheckTcpFrameInput(std::span<const uint8_t> input) {
  if (input.empty()) return "";
  if (input[0] % 2 == 0) return CheckTcpFrameHeader(input.subspan(1));
  if (input.size() < 2) return "";
  return CheckTcpFrameStream(input[1], input.subspan(2));
}

}  // namespace xfer::fuzz

#endif  // XFER_TESTS_TRANSPORT_TCP_FUZZ_FRAME_CHECK_H_
