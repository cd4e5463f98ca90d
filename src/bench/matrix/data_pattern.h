// The bytes --verify writes and checks. Each 8-byte word is a hash of the
// seed and the word's offset, so a block that lands at the wrong offset, a
// stale block from another cell (another seed) and a torn copy all fail.
#ifndef XFER_BENCH_MATRIX_DATA_PATTERN_H_
#define XFER_BENCH_MATRIX_DATA_PATTERN_H_

#include <cstddef>
#include <cstdint>
#include <optional>

namespace xfer::matrix {

// Fills [data, data+length) with the pattern of `seed`.
void FillPattern(uint8_t* data, size_t length, uint64_t seed);

// Overwrites [data, data+length) with bytes no seed's pattern is likely to
// produce in place (a constant), so a transfer that moves nothing fails.
void PoisonPattern(uint8_t* data, size_t length);

// The offset of the first byte that differs from the pattern of `seed`, or
// none when all `length` bytes match.
std::optional<size_t> FindPatternMismatch(const uint8_t* data, size_t length, uint64_t seed);

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_DATA_PATTERN_H_
