// Buffered reading of one data socket's frames, so that a burst of small
// frames costs one recv() instead of two per frame.
//
// Payloads go straight to their destination: only the bytes that arrived in
// the same recv() as their header pass through the buffer (at most its
// capacity, kept small so a large payload is copied almost entirely once).
#ifndef XFER_TRANSPORT_TCP_FRAME_READER_H_
#define XFER_TRANSPORT_TCP_FRAME_READER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "common/clock.h"
#include "common/socket.h"
#include "transport/tcp/frame.h"
#include "xfer/status.h"

namespace xfer::transport::tcp {

// Not thread-safe: one reader thread per socket.
class FrameReader {
 public:
  static constexpr size_t kDefaultCapacity = size_t{16} << 10;

  // `socket` must outlive the reader. REQUIRES: capacity >= kFrameHeaderSize.
  explicit FrameReader(Socket& socket, size_t capacity = kDefaultCapacity);

  // Reads what the socket holds now, without waiting (one recv). Returns
  // whether bytes arrived. Errors: kConnectionLost (EOF or reset), kIoError.
  // Frames buffered before an error can still be consumed.
  Result<bool> Fill();

  // Consumes and returns the next frame's header when all of it is
  // buffered; nullopt when more bytes are needed. Errors: kProtocolError
  // (see DecodeFrameHeader).
  Result<std::optional<FrameHeader>> Next();

  // True when the next `length` bytes of the stream are already buffered,
  // so ReadPayload will not block.
  bool Buffered(uint64_t length) const { return end_ - begin_ >= length; }

  // Moves the next `length` bytes of the stream to `dst` (buffered bytes
  // first, the rest straight from the socket, io_timeout per chunk), or
  // discards them when dst is null. Errors: kConnectionLost, kTimeout,
  // kIoError.
  Status ReadPayload(void* dst, uint64_t length, std::chrono::milliseconds io_timeout);

  // True while part of a frame header is buffered: the peer owes us bytes.
  bool partial() const { return begin_ != end_; }

 private:
  Socket& socket_;
  std::vector<uint8_t> buffer_;
  size_t begin_ = 0;  // first unconsumed byte
  size_t end_ = 0;    // one past the last buffered byte
};

}  // namespace xfer::transport::tcp

#endif  // XFER_TRANSPORT_TCP_FRAME_READER_H_
