// Moving frames and their payloads over a data socket with a progress
// timeout: every chunk of kIoChunk bytes gets a fresh `io_timeout`, so a
// large payload on a slow link is not mistaken for a dead peer, while a
// silent peer is still detected within io_timeout.
#ifndef XFER_TRANSPORT_TCP_PAYLOAD_IO_H_
#define XFER_TRANSPORT_TCP_PAYLOAD_IO_H_

#include <chrono>
#include <cstdint>
#include <span>

#include "common/socket.h"
#include "transport/tcp/frame.h"
#include "xfer/status.h"

namespace xfer::transport::tcp {

inline constexpr uint64_t kIoChunk = uint64_t{64} << 20;

// Sends `prefix` (already encoded frames, possibly empty), then `header`,
// then [payload, payload + length), gathered into one sendmsg where
// possible; the payload is sent straight from caller memory. Errors:
// kConnectionLost, kTimeout, kIoError (from Socket).
Status SendFrame(Socket& socket, std::span<const uint8_t> prefix, const FrameBytes& header,
                 const void* payload, uint64_t length, std::chrono::milliseconds io_timeout);

// Receives exactly `length` bytes into `dst`. Errors as SendFrame.
Status RecvPayload(Socket& socket, void* dst, uint64_t length,
                   std::chrono::milliseconds io_timeout);

}  // namespace xfer::transport::tcp

#endif  // XFER_TRANSPORT_TCP_PAYLOAD_IO_H_
