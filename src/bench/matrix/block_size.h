// Block sizes as HIXL prints them: binary units, "16K" = 16 KiB, "2M" = 2 MiB.
#ifndef XFER_BENCH_MATRIX_BLOCK_SIZE_H_
#define XFER_BENCH_MATRIX_BLOCK_SIZE_H_

#include <cstdint>
#include <string>

namespace xfer::matrix {

// Multiples of 2^30 print as "nG", of 2^20 as "nM", of 2^10 as "nK",
// anything else as the plain byte count.
std::string BlockLabel(uint64_t bytes);

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_BLOCK_SIZE_H_
