// `xfer compare A.json B.json`: every point the two runs share, with A, B
// and B/A, and whether the difference lies within the run-to-run spread.
//
// Points match on (perftest) the test and MsgSize, compared on BW_average
// in the stated unit for bandwidth tests and on t_typical (t_avg for
// duration-mode runs) for latency tests; (matrix) transport, direction and
// block size, compared on the median GB/s.
//
// Spread: a matrix cell's samples give its min..max; a difference is
// "within" when A's and B's min..max ranges overlap, "outside" when they do
// not. A cell with fewer than two timed samples, and every perftest row
// (they carry averages and peaks, not a spread across runs), has an unknown
// spread, and the comparison says so rather than invent one. Pure;
// thread-safe.
#ifndef XFER_REPORT_COMPARE_H_
#define XFER_REPORT_COMPARE_H_

#include <optional>
#include <string>
#include <vector>

#include "report/run_document.h"
#include "xfer/status.h"

namespace xfer::report {

enum class Spread { kWithin, kOutside, kUnknown };

// One side of a point: the value, or why there is none ("not in A.json",
// "n/a", "failed").
struct CompareSide {
  std::optional<double> value;
  std::string missing;
};

struct ComparePoint {
  std::string key;  // "65536" or "shm D2rD 16K"
  CompareSide a;
  CompareSide b;
  std::optional<double> ratio;  // B/A when both are there and A > 0
  Spread spread = Spread::kUnknown;
  std::string spread_note;  // why unknown, or the two ranges
};

struct Comparison {
  std::string a_name;
  std::string b_name;
  std::string what;  // "RDMA_Write_BW_Test BW_average [Gb/s (10^9 bit/s)]"
  std::string key_header;  // "MsgSize" or "transport direction block"
  std::vector<ComparePoint> points;  // A's order, then the points only in B
  // Why no point has a known spread, when that holds for the whole kind of
  // run (perftest rows); "" otherwise. Points then carry no note of their own.
  std::string spread_unknown_because;
  // Latency: lower is better; bandwidth: higher.
  bool lower_is_better = false;
  // What the reader must know before trusting the ratios: an input that
  // did not complete (failed, interrupted, running), figures converted
  // from another unit.
  std::vector<std::string> warnings;
};

// Errors: kInvalidArgument when the runs are of different kinds or tests
// ("a.json is a bandwidth test (RDMA_Write_BW_Test), b.json is a matrix:
// compare runs of the same kind"). Runs in different bandwidth units
// compare, B converted to A's unit (both are bytes per second scaled).
Result<Comparison> CompareRuns(const RunDocument& a, const RunDocument& b);

// The comparison as an aligned text table with a legend; ends in '\n'.
std::string RenderComparison(const Comparison& comparison);

std::string_view SpreadName(Spread spread);

}  // namespace xfer::report

#endif  // XFER_REPORT_COMPARE_H_
