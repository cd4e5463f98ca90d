#include "transport/shm/frame.h"

#include <fmt/format.h>

#include <cstring>
#include <string>

namespace xfer::transport::shm {

Status CheckFrameHeader(const FrameHeader& header) {
  if (header.magic != kFrameMagic) {
    return ProtocolError(fmt::format("shm: frame with bad magic {:#x} from the peer", header.magic));
  }
  if (header.type == kFrameAbort) {
    if (header.length < sizeof(uint32_t) || header.length > sizeof(uint32_t) + kMaxAbortText) {
      return ProtocolError(fmt::format("shm: abort frame of {} bytes from the peer", header.length));
    }
    return Status::Ok();
  }
  if (header.type == kFrameDoorbell) {
    if (header.length != 0) {
      return ProtocolError(
          fmt::format("shm: a doorbell frame with a {}-byte payload from the peer", header.length));
    }
    return Status::Ok();
  }
  if (header.type != kFrameSend) {
    return ProtocolError(fmt::format("shm: frame of unknown type {} from the peer", header.type));
  }
  if (header.length > kMaxMessageBytes) {
    return ProtocolError(fmt::format("shm: the peer announced a {}-byte message; the limit is {}",
                                     header.length, kMaxMessageBytes));
  }
  return Status::Ok();
}

std::vector<uint8_t> EncodeAbortBody(const Status& why) {
  const std::string text = why.message().substr(0, kMaxAbortText);
  const auto code = static_cast<uint32_t>(why.code());
  // Assembled on the stack: gcc 12 flags a memcpy or insert into a freshly
  // sized vector as a null or overflowing write (-Wnull-dereference,
  // -Wstringop-overflow), falsely.
  uint8_t raw[sizeof(code) + kMaxAbortText];
  std::memcpy(raw, &code, sizeof(code));
  std::memcpy(raw + sizeof(code), text.data(), text.size());
  return std::vector<uint8_t>(raw, raw + sizeof(code) + text.size());
}

Status DecodeAbortBody(std::span<const uint8_t> body, Status& peer_failure) {
  if (body.size() < sizeof(uint32_t) || body.size() > sizeof(uint32_t) + kMaxAbortText) {
    return ProtocolError(fmt::format("shm: abort frame of {} bytes from the peer", body.size()));
  }
  uint32_t code = 0;
  std::memcpy(&code, body.data(), sizeof(code));
  if (code < static_cast<uint32_t>(StatusCode::kInvalidArgument) ||
      code > static_cast<uint32_t>(StatusCode::kInternal)) {
    return ProtocolError(fmt::format("shm: abort frame with unknown status code {}", code));
  }
  std::string reason(reinterpret_cast<const char*>(body.data()) + sizeof(uint32_t),
                     body.size() - sizeof(uint32_t));
  for (char& c : reason) {
    if (c < 0x20 || c > 0x7e) c = '?';  // untrusted text goes into our logs
  }
  peer_failure = Status(static_cast<StatusCode>(code), std::move(reason));
  return Status::Ok();
}

}  // namespace xfer::transport::shm
