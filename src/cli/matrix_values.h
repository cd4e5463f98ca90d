// The list-valued flags of `xfer matrix`: block-size specs, direction and
// transport lists. Pure and thread-safe. Errors are kInvalidArgument with a
// fragment that does not name the flag; callers prefix it.
#ifndef XFER_CLI_MATRIX_VALUES_H_
#define XFER_CLI_MATRIX_VALUES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/matrix/direction.h"
#include "xfer/status.h"

namespace xfer::cli {

// HIXL's --block_sizes: a power-of-two range "16K:2M" (both ends powers of
// two, the start no larger than the end: every doubling in between) or a
// list "4K,64K,1M" of sizes (ParseBinarySize), returned ascending. Errors:
// an empty item, a bad size, a range whose ends are not powers of two or
// reversed, a repeated size.
Result<std::vector<uint64_t>> ParseBlockSizes(std::string_view spec);

// "a,b,c" -> {"a","b","c"}. Errors: an empty item ("a,,b"), a repeated one.
Result<std::vector<std::string>> ParseNameList(std::string_view text);

// --directions: each item a direction name (bench/matrix/direction.h).
Result<std::vector<matrix::Direction>> ParseDirectionList(std::string_view text);

}  // namespace xfer::cli

#endif  // XFER_CLI_MATRIX_VALUES_H_
