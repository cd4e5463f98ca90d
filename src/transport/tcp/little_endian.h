// Fixed-offset little-endian loads and stores for the tcp frame header.
// Wire structs are never memcpy'd: padding and host byte order must not leak
// onto the network. (common/wire.h's WireWriter allocates, which the
// per-frame hot path must not.)
#ifndef XFER_TRANSPORT_TCP_LITTLE_ENDIAN_H_
#define XFER_TRANSPORT_TCP_LITTLE_ENDIAN_H_

#include <cstdint>

namespace xfer::transport::tcp {

// Each Store writes exactly sizeof(value) bytes at `out`; each Load reads as
// many from `in`. REQUIRES: the bytes exist.
inline void StoreLe32(uint8_t* out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(value >> (8 * i));
}

inline void StoreLe64(uint8_t* out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(value >> (8 * i));
}

inline uint32_t LoadLe32(const uint8_t* in) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | in[i];
  return value;
}

inline uint64_t LoadLe64(const uint8_t* in) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | in[i];
  return value;
}

}  // namespace xfer::transport::tcp

#endif  // XFER_TRANSPORT_TCP_LITTLE_ENDIAN_H_
