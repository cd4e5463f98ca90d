#include "bench/matrix/block_size.h"

#include <fmt/format.h>

namespace xfer::matrix {

std::string BlockLabel(uint64_t bytes) {
  constexpr uint64_t kKiB = 1024;
  if (bytes != 0 && bytes % (kKiB * kKiB * kKiB) == 0) return fmt::format("{}G", bytes >> 30);
  if (bytes != 0 && bytes % (kKiB * kKiB) == 0) return fmt::format("{}M", bytes >> 20);
  if (bytes != 0 && bytes % kKiB == 0) return fmt::format("{}K", bytes >> 10);
  return fmt::format("{}", bytes);
}

}  // namespace xfer::matrix
