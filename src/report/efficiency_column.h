// `--efficiency`: perftest's bandwidth table with two more columns, the
// ceiling of the path at each size and the measured average's fraction of
// it. The default table (perftest_table.h) stays byte-identical to
// perftest's; this one is xfer's own.
#ifndef XFER_REPORT_EFFICIENCY_COLUMN_H_
#define XFER_REPORT_EFFICIENCY_COLUMN_H_

#include <map>
#include <string>

#include "bench/model/bench_params.h"
#include "bench/model/ceiling.h"
#include "bench/model/results.h"

namespace xfer::report {

// BwColumnHeader + "   Ceiling[MiB/sec]   Efficiency" (or [Gb/sec]).
std::string EfficiencyColumnHeader(bench::BwUnits units);

// BwRow + the ceiling in the table's unit and average / ceiling in percent;
// "unknown" and "-" where `ceiling` is null or knows no limit.
std::string EfficiencyRow(const bench::BwResult& result, const bench::Ceiling* ceiling,
                          bench::BwUnits units);

// One " Ceiling: <source>" line per distinct source in `ceilings`, in size
// order; "" when empty.
std::string CeilingSourceLines(const std::map<uint64_t, bench::Ceiling>& ceilings);

}  // namespace xfer::report

#endif  // XFER_REPORT_EFFICIENCY_COLUMN_H_
