// The ceiling of a verbs bandwidth run: the port's goodput at the run's MTU
// and every PCIe link from the NIC to the root port, as `xfer doctor`
// derives them from sysfs.
#ifndef XFER_PERFTEST_LINK_CEILING_H_
#define XFER_PERFTEST_LINK_CEILING_H_

#include <cstdint>
#include <map>
#include <span>

#include "bench/model/bench_params.h"
#include "bench/model/ceiling.h"
#include "bench/model/observer.h"

namespace xfer::perftest {

// One ceiling, the same for every size in `sizes` (a link has one rate;
// small messages fall short of it by message rate, which the efficiency
// then shows). With -b both directions of the full-duplex link count, so
// the ceiling is twice one direction's. Unknown, with the doctor's reason,
// where sysfs does not give one. Empty for latency tests. Reads sysfs;
// never fails.
std::map<uint64_t, bench::Ceiling> LinkCeilings(const bench::BenchParams& params,
                                                const bench::VerbsRunInfo& run,
                                                std::span<const uint64_t> sizes);

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_LINK_CEILING_H_
