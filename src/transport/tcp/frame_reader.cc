#include "transport/tcp/frame_reader.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>

#include "transport/tcp/payload_io.h"

namespace xfer::transport::tcp {

FrameReader::FrameReader(Socket& socket, size_t capacity)
    : socket_(socket), buffer_(std::max(capacity, kFrameHeaderSize)) {}

Result<bool> FrameReader::Fill() {
  if (begin_ == end_) {
    begin_ = end_ = 0;
  } else if (begin_ > 0) {
    // Only a partial header remains (callers consume whole frames first).
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) return true;
  auto got = socket_.RecvSome(buffer_.data() + end_, buffer_.size() - end_);
  if (!got.ok()) return got.status();
  end_ += *got;
  return *got > 0;
}

Result<std::optional<FrameHeader>> FrameReader::Next() {
  if (end_ - begin_ < kFrameHeaderSize) return std::optional<FrameHeader>();
  auto header =
      DecodeFrameHeader(std::span<const uint8_t, kFrameHeaderSize>(buffer_.data() + begin_,
                                                                   kFrameHeaderSize));
  if (!header.ok()) return header.status();
  begin_ += kFrameHeaderSize;
  return std::optional<FrameHeader>(*header);
}

Status FrameReader::ReadPayload(void* dst, uint64_t length, std::chrono::milliseconds io_timeout) {
  uint64_t from_buffer = std::min<uint64_t>(length, end_ - begin_);
  if (dst != nullptr && from_buffer > 0) std::memcpy(dst, buffer_.data() + begin_, from_buffer);
  begin_ += from_buffer;
  uint64_t rest = length - from_buffer;
  if (rest == 0) return Status::Ok();
  if (dst != nullptr) {
    return RecvPayload(socket_, static_cast<uint8_t*>(dst) + from_buffer, rest, io_timeout);
  }
  // Discarding: the (now empty) buffer serves as scratch.
  begin_ = end_ = 0;
  while (rest > 0) {
    uint64_t chunk = std::min<uint64_t>(rest, buffer_.size());
    XFER_RETURN_IF_ERROR(socket_.RecvAll(buffer_.data(), chunk, Deadline::After(io_timeout)));
    rest -= chunk;
  }
  return Status::Ok();
}

}  // namespace xfer::transport::tcp
