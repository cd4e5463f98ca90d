// The framing of two-sided messages on an shm connection's Unix socket, and
// of the doorbell its notification ring rings (notification_ring.h).
#ifndef XFER_TRANSPORT_SHM_FRAME_H_
#define XFER_TRANSPORT_SHM_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "xfer/status.h"

namespace xfer::transport::shm {

// Frame = FrameHeader + `length` payload bytes. Both ends run on one host
// with one ABI (the transport is same_host_only), so the header travels in
// host byte order; the receiver still validates every field.
struct FrameHeader {
  uint32_t magic;
  uint32_t type;
  uint64_t length;
};
static_assert(sizeof(FrameHeader) == 16);

inline constexpr uint32_t kFrameMagic = 0x46534d58;  // "XMSF"
inline constexpr uint32_t kFrameSend = 1;            // payload: one application message
inline constexpr uint32_t kFrameAbort = 2;           // payload: u32 StatusCode + reason text
inline constexpr uint32_t kFrameDoorbell = 3;        // no payload: drain the notification ring
inline constexpr size_t kMaxAbortText = 256;

// Largest message PostSend accepts and the receiver believes; a frame that
// announces more is garbage.
inline constexpr uint64_t kMaxMessageBytes = uint64_t{1} << 32;

// Checks a header read from the peer before anything of its payload is read.
// Errors: kProtocolError for a bad magic, an unknown type, a SEND announcing
// more than kMaxMessageBytes, an ABORT whose body is not 4..4+kMaxAbortText
// bytes, a DOORBELL with a payload.
Status CheckFrameHeader(const FrameHeader& header);

// The body of the ABORT frame that tells the peer why this side failed: the
// code and at most kMaxAbortText bytes of the message.
std::vector<uint8_t> EncodeAbortBody(const Status& why);

// The peer's failure an ABORT body carries, non-printable bytes of its text
// made '?' (it goes into our logs). Errors: kProtocolError for a body that is
// not 4..4+kMaxAbortText bytes or a code outside kInvalidArgument..kInternal.
Status DecodeAbortBody(std::span<const uint8_t> body, Status& peer_failure);

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_FRAME_H_
