// The statistic of a matrix cell: median, min and max bandwidth over its
// counted samples. Every sample moves the same bytes, so bandwidths are
// bytes / seconds per sample; the median of an even count is the mean of
// the middle two (nvbandwidth's default statistic; HIXL's mean of all loops
// with the cold one included is what we do not do, matrix.md §5).
#ifndef XFER_BENCH_MATRIX_CELL_STATISTIC_H_
#define XFER_BENCH_MATRIX_CELL_STATISTIC_H_

#include <cstdint>
#include <span>

#include "xfer/status.h"

namespace xfer::matrix {

struct CellStatistic {
  double median_gbps = 0;  // GB/s = 10^9 B/s
  double min_gbps = 0;
  double max_gbps = 0;
};

// GB/s of `bytes` moved in `seconds`. REQUIRES: seconds > 0.
double GigabytesPerSecond(uint64_t bytes, double seconds);

// The statistic of samples that each moved `bytes`. Errors:
// kInvalidArgument when there is no sample or one is not a positive time.
Result<CellStatistic> ComputeCellStatistic(uint64_t bytes, std::span<const double> seconds);

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_CELL_STATISTIC_H_
