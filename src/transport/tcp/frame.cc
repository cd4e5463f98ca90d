#include "transport/tcp/frame.h"

#include <fmt/format.h>

#include "transport/tcp/little_endian.h"

namespace xfer::transport::tcp {
namespace {

constexpr size_t kMagicOffset = 0;
constexpr size_t kTypeOffset = 4;
constexpr size_t kPadOffset = 5;
constexpr size_t kPadSize = 3;
constexpr size_t kStatusOffset = 8;
constexpr size_t kReservedOffset = 12;
constexpr size_t kIdOffset = 16;
constexpr size_t kAddressOffset = 24;
constexpr size_t kLengthOffset = 32;

bool KnownType(uint8_t type) {
  return type >= static_cast<uint8_t>(FrameType::kWrite) &&
         type <= static_cast<uint8_t>(FrameType::kNotify);
}

}  // namespace

bool IsRequest(FrameType type) {
  return type == FrameType::kWrite || type == FrameType::kRead || type == FrameType::kSend ||
         type == FrameType::kNotify;
}

uint64_t PayloadLength(const FrameHeader& header) {
  switch (header.type) {
    case FrameType::kWrite:
    case FrameType::kReadData:
    case FrameType::kSend:
    case FrameType::kNotify:
      return header.length;
    case FrameType::kWriteAck:
    case FrameType::kRead:
      return 0;
  }
  return 0;
}

FrameBytes EncodeFrameHeader(const FrameHeader& header) {
  FrameBytes bytes{};  // zero pad and reserved fields
  StoreLe32(&bytes[kMagicOffset], kFrameMagic);
  bytes[kTypeOffset] = static_cast<uint8_t>(header.type);
  StoreLe32(&bytes[kStatusOffset], static_cast<uint32_t>(header.status));
  StoreLe64(&bytes[kIdOffset], header.request_id);
  StoreLe64(&bytes[kAddressOffset], header.remote_address);
  StoreLe64(&bytes[kLengthOffset], header.length);
  return bytes;
}

Result<FrameHeader> DecodeFrameHeader(std::span<const uint8_t, kFrameHeaderSize> bytes) {
  uint32_t magic = LoadLe32(&bytes[kMagicOffset]);
  if (magic != kFrameMagic) {
    return ProtocolError(fmt::format("tcp frame has bad magic {:#010x}", magic));
  }
  uint8_t type = bytes[kTypeOffset];
  if (!KnownType(type)) return ProtocolError(fmt::format("tcp frame has unknown type {}", type));
  for (size_t i = 0; i < kPadSize; ++i) {
    if (bytes[kPadOffset + i] != 0) return ProtocolError("tcp frame has non-zero padding");
  }
  if (LoadLe32(&bytes[kReservedOffset]) != 0) {
    return ProtocolError("tcp frame has a non-zero reserved field");
  }
  FrameHeader header;
  header.type = static_cast<FrameType>(type);
  uint32_t status = LoadLe32(&bytes[kStatusOffset]);
  if (status > static_cast<uint32_t>(StatusCode::kInternal) ||
      status == static_cast<uint32_t>(StatusCode::kInProgress)) {
    return ProtocolError(fmt::format("tcp frame has invalid status code {}", status));
  }
  header.status = static_cast<StatusCode>(status);
  if (header.status != StatusCode::kOk && IsRequest(header.type)) {
    return ProtocolError(
        fmt::format("tcp {} frame carries an error status", FrameTypeName(header.type)));
  }
  header.request_id = LoadLe64(&bytes[kIdOffset]);
  header.remote_address = LoadLe64(&bytes[kAddressOffset]);
  header.length = LoadLe64(&bytes[kLengthOffset]);
  if (header.length > kMaxFramePayload) {
    return ProtocolError(fmt::format("tcp {} frame announces {} bytes (limit {})",
                                     FrameTypeName(header.type), header.length, kMaxFramePayload));
  }
  if (header.type == FrameType::kReadData && header.status != StatusCode::kOk &&
      header.length != 0) {
    return ProtocolError("tcp READ_DATA frame with an error status claims a payload");
  }
  if (header.type == FrameType::kNotify &&
      (header.length < 1 || header.length > kMaxNotificationBytes)) {
    return ProtocolError(fmt::format("tcp NOTIFY frame of {} bytes; notifications hold 1 to {}",
                                     header.length, kMaxNotificationBytes));
  }
  return header;
}

const char* FrameTypeName(FrameType type) {
  switch (type) {
    case FrameType::kWrite:
      return "WRITE";
    case FrameType::kWriteAck:
      return "WRITE_ACK";
    case FrameType::kRead:
      return "READ";
    case FrameType::kReadData:
      return "READ_DATA";
    case FrameType::kSend:
      return "SEND";
    case FrameType::kNotify:
      return "NOTIFY";
  }
  return "UNKNOWN";
}

}  // namespace xfer::transport::tcp
