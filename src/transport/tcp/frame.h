// The tcp transport's data-stream frames: a fixed 40-byte header, optionally
// followed by `length` payload bytes.
//
// Wire layout (all integers little-endian):
//   0  u32 magic            kFrameMagic
//   4  u8  type             FrameType
//   5  u8  pad[3]           zero
//   8  u32 status           StatusCode; non-zero only in WRITE_ACK/READ_DATA
//   12 u32 reserved         zero
//   16 u64 request_id       per-socket sequence number, echoed by responses
//   24 u64 remote_address   address in the target's registered memory
//   32 u64 length           payload bytes (READ: bytes asked for)
//
// Frames per type:
//   WRITE      initiator -> target, header + `length` payload bytes
//   WRITE_ACK  target -> initiator, header only, echoes id/address/length
//   READ       initiator -> target, header only
//   READ_DATA  target -> initiator, header + `length` bytes, or, with an
//              error status, header only and length 0
//   SEND       initiator -> target, header + `length` bytes; no response
//   NOTIFY     initiator -> target, header + 1..kMaxNotificationBytes bytes;
//              no response. Served in order with the stream's WRITEs and
//              READs, so it reaches the application after their bytes.
#ifndef XFER_TRANSPORT_TCP_FRAME_H_
#define XFER_TRANSPORT_TCP_FRAME_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "xfer/status.h"
#include "xfer/transfer.h"

namespace xfer::transport::tcp {

enum class FrameType : uint8_t {
  kWrite = 1,
  kWriteAck = 2,
  kRead = 3,
  kReadData = 4,
  kSend = 5,
  kNotify = 6,
};

inline constexpr uint32_t kFrameMagic = 0x46505458;  // "XTPF" on the wire
inline constexpr size_t kFrameHeaderSize = 40;
// Largest payload one frame may announce. A peer announcing more is broken
// or hostile; the connection is dropped before anything is read or
// allocated. Posts split larger entries into several frames.
inline constexpr uint64_t kMaxFramePayload = uint64_t{1} << 30;

struct FrameHeader {
  FrameType type = FrameType::kWrite;
  StatusCode status = StatusCode::kOk;
  uint64_t request_id = 0;
  uint64_t remote_address = 0;
  uint64_t length = 0;
};

using FrameBytes = std::array<uint8_t, kFrameHeaderSize>;

// True for the frames a target serves (WRITE, READ, SEND); false for the
// responses an initiator completes (WRITE_ACK, READ_DATA).
bool IsRequest(FrameType type);

// Payload bytes that follow `header` on the wire.
uint64_t PayloadLength(const FrameHeader& header);

// Serialises `header`. REQUIRES: header would pass DecodeFrameHeader.
FrameBytes EncodeFrameHeader(const FrameHeader& header);

// Parses and validates untrusted bytes. Errors (all kProtocolError, naming
// the fault): bad magic, unknown type, non-zero padding, an unknown status
// code or kInProgress, an error status on a request frame, a length above
// kMaxFramePayload, an error READ_DATA that claims a payload, a NOTIFY that
// is not 1..kMaxNotificationBytes.
Result<FrameHeader> DecodeFrameHeader(std::span<const uint8_t, kFrameHeaderSize> bytes);

// "WRITE", "READ_DATA", ... for messages.
const char* FrameTypeName(FrameType type);

}  // namespace xfer::transport::tcp

#endif  // XFER_TRANSPORT_TCP_FRAME_H_
