// Deterministic test payloads: bytes that depend on their position and a
// seed, so a misplaced, truncated or stale byte is caught and located.
#ifndef XFER_TESTS_SUPPORT_BYTE_PATTERN_H_
#define XFER_TESTS_SUPPORT_BYTE_PATTERN_H_

#include <cstddef>
#include <cstdint>

#include "transport/local_memory.h"

namespace xfer::testing {

inline uint8_t PatternByte(size_t i, uint32_t seed) {
  uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull + seed * 0xD1B54A32D192ED03ull;
  return static_cast<uint8_t>((x >> 29) ^ (x >> 47));
}

inline void FillPattern(void* data, size_t length, uint32_t seed) {
  auto* bytes = static_cast<uint8_t*>(data);
  for (size_t i = 0; i < length; ++i) bytes[i] = PatternByte(i, seed);
}

// Index of the first byte that differs from the pattern, or `length`.
inline size_t FirstPatternMismatch(const void* data, size_t length, uint32_t seed) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < length; ++i) {
    if (bytes[i] != PatternByte(i, seed)) return i;
  }
  return length;
}

inline uint8_t* Bytes(const transport::LocalRegionView& region) {
  return static_cast<uint8_t*>(region.address);
}
inline uint64_t Addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

}  // namespace xfer::testing

#endif  // XFER_TESTS_SUPPORT_BYTE_PATTERN_H_
