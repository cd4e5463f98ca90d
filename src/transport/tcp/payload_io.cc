#include "transport/tcp/payload_io.h"

#include <sys/uio.h>

#include <algorithm>

namespace xfer::transport::tcp {

Status SendFrame(Socket& socket, std::span<const uint8_t> prefix, const FrameBytes& header,
                 const void* payload, uint64_t length, std::chrono::milliseconds io_timeout) {
  uint64_t first = std::min(length, kIoChunk);
  // Socket::SendAllv skips empty entries and consumes the array.
  iovec iov[3];
  iov[0].iov_base = const_cast<uint8_t*>(prefix.data());
  iov[0].iov_len = prefix.size();
  iov[1].iov_base = const_cast<uint8_t*>(header.data());
  iov[1].iov_len = header.size();
  iov[2].iov_base = const_cast<void*>(payload);
  iov[2].iov_len = first;
  XFER_RETURN_IF_ERROR(socket.SendAllv(iov, Deadline::After(io_timeout)));
  const auto* bytes = static_cast<const uint8_t*>(payload);
  for (uint64_t done = first; done < length;) {
    uint64_t chunk = std::min(length - done, kIoChunk);
    XFER_RETURN_IF_ERROR(socket.SendAll(bytes + done, chunk, Deadline::After(io_timeout)));
    done += chunk;
  }
  return Status::Ok();
}

Status RecvPayload(Socket& socket, void* dst, uint64_t length,
                   std::chrono::milliseconds io_timeout) {
  auto* bytes = static_cast<uint8_t*>(dst);
  for (uint64_t done = 0; done < length;) {
    uint64_t chunk = std::min(length - done, kIoChunk);
    XFER_RETURN_IF_ERROR(socket.RecvAll(bytes + done, chunk, Deadline::After(io_timeout)));
    done += chunk;
  }
  return Status::Ok();
}

}  // namespace xfer::transport::tcp
