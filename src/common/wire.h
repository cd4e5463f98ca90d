// Bounds-checked little-endian encoding for the messages peers exchange.
// Every decoder reads untrusted bytes: a short or oversized field is a
// kProtocolError, never an out-of-bounds read.
#ifndef XFER_COMMON_WIRE_H_
#define XFER_COMMON_WIRE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xfer/status.h"

namespace xfer {

class WireWriter {
 public:
  void U8(uint8_t v) { bytes_.push_back(v); }
  void U16(uint16_t v) { Le(v, 2); }
  void U32(uint32_t v) { Le(v, 4); }
  void U64(uint64_t v) { Le(v, 8); }
  // u16 length + bytes; REQUIRES: s.size() <= 65535.
  void String(std::string_view s) {
    U16(static_cast<uint16_t>(s.size()));
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  void Bytes(std::span<const uint8_t> raw) { bytes_.insert(bytes_.end(), raw.begin(), raw.end()); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  void Le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::vector<uint8_t> bytes_;
};

class WireReader {
 public:
  explicit WireReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  Status U8(uint8_t& v) { return Le(v); }
  Status U16(uint16_t& v) { return Le(v); }
  Status U32(uint32_t& v) { return Le(v); }
  Status U64(uint64_t& v) { return Le(v); }
  Status String(std::string& s, size_t max_length) {
    uint16_t n = 0;
    XFER_RETURN_IF_ERROR(U16(n));
    if (n > max_length) return ProtocolError("string field longer than " + std::to_string(max_length));
    if (bytes_.size() - pos_ < n) return Truncated();
    s.assign(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return Status::Ok();
  }
  // Exactly out.size() raw bytes (a fixed-size field: a nonce, a MAC).
  Status Bytes(std::span<uint8_t> out) {
    if (bytes_.size() - pos_ < out.size()) return Truncated();
    std::copy_n(bytes_.begin() + static_cast<std::ptrdiff_t>(pos_), out.size(), out.begin());
    pos_ += out.size();
    return Status::Ok();
  }
  size_t remaining() const { return bytes_.size() - pos_; }
  // OK only when every byte was consumed: trailing bytes mean a peer that
  // speaks another version of the message.
  Status ExpectEnd() const {
    return remaining() == 0 ? Status::Ok()
                            : ProtocolError(std::to_string(remaining()) + " unexpected trailing bytes");
  }

 private:
  template <typename T>
  Status Le(T& v) {
    if (bytes_.size() - pos_ < sizeof(T)) return Truncated();
    uint64_t acc = 0;
    for (size_t i = 0; i < sizeof(T); ++i) acc |= uint64_t{bytes_[pos_ + i]} << (8 * i);
    v = static_cast<T>(acc);
    pos_ += sizeof(T);
    return Status::Ok();
  }
  static Status Truncated() { return ProtocolError("message truncated"); }

  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

}  // namespace xfer

#endif  // XFER_COMMON_WIRE_H_
