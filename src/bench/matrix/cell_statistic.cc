#include "bench/matrix/cell_statistic.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace xfer::matrix {

double GigabytesPerSecond(uint64_t bytes, double seconds) {
  return static_cast<double>(bytes) / 1e9 / seconds;
}

Result<CellStatistic> ComputeCellStatistic(uint64_t bytes, std::span<const double> seconds) {
  if (seconds.empty()) return InvalidArgument("a cell needs at least one sample");
  std::vector<double> gbps;
  gbps.reserve(seconds.size());
  for (double s : seconds) {
    if (!(s > 0) || !std::isfinite(s)) return InvalidArgument("a sample time is not positive");
    gbps.push_back(GigabytesPerSecond(bytes, s));
  }
  std::sort(gbps.begin(), gbps.end());
  const size_t n = gbps.size();
  CellStatistic stat;
  stat.median_gbps = n % 2 == 1 ? gbps[n / 2] : (gbps[n / 2 - 1] + gbps[n / 2]) / 2;
  stat.min_gbps = gbps.front();
  stat.max_gbps = gbps.back();
  return stat;
}

}  // namespace xfer::matrix
