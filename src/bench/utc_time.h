// Wall-clock timestamps for run documents.
#ifndef XFER_BENCH_UTC_TIME_H_
#define XFER_BENCH_UTC_TIME_H_

#include <string>

namespace xfer::bench {

// Now, in ISO 8601 UTC to the second: "2026-12-01T20:19:28Z". Thread-safe.
std::string UtcNow();

}  // namespace xfer::bench

#endif  // XFER_BENCH_UTC_TIME_H_
