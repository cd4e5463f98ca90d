#include "bench/matrix/data_pattern.h"

#include <cstring>

namespace xfer::matrix {
namespace {

// SplitMix64's finaliser: cheap, and every input bit reaches every output bit.
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t Word(uint64_t seed, size_t word_index) {
  return Mix(seed * 0x100000001B3ull ^ static_cast<uint64_t>(word_index));
}

constexpr uint8_t kPoison = 0xA5;

}  // namespace

void FillPattern(uint8_t* data, size_t length, uint64_t seed) {
  const size_t words = length / 8;
  for (size_t w = 0; w < words; ++w) {
    const uint64_t v = Word(seed, w);
    std::memcpy(data + w * 8, &v, 8);
  }
  if (const size_t tail = length % 8; tail != 0) {
    const uint64_t v = Word(seed, words);
    std::memcpy(data + words * 8, &v, tail);
  }
}

void PoisonPattern(uint8_t* data, size_t length) { std::memset(data, kPoison, length); }

std::optional<size_t> FindPatternMismatch(const uint8_t* data, size_t length, uint64_t seed) {
  const size_t words = (length + 7) / 8;
  for (size_t w = 0; w < words; ++w) {
    const uint64_t expected = Word(seed, w);
    const size_t n = w * 8 + 8 <= length ? 8 : length - w * 8;
    if (std::memcmp(data + w * 8, &expected, n) == 0) continue;
    const auto* want = reinterpret_cast<const uint8_t*>(&expected);
    for (size_t i = 0; i < n; ++i) {
      if (data[w * 8 + i] != want[i]) return w * 8 + i;
    }
  }
  return std::nullopt;
}

}  // namespace xfer::matrix
