// Wall-clock timestamps for run documents.
#ifndef XFER_BENCH_UTC_TIME_H_
#define XFER_BENCH_UTC_TIME_H_

#include <chrono>
#include <string>

namespace xfer::bench {

// Now, in ISO 8601 UTC to the second: "2026-12-01T20:19:28Z". Thread-safe.
std::string UtcNow();

// `at` in ISO 8601 UTC with `fraction_digits` (3: milliseconds, 6:
// microseconds) after the second: "2026-12-07T21:03:05.123456Z". Thread-safe.
std::string UtcTime(std::chrono::system_clock::time_point at, int fraction_digits);

}  // namespace xfer::bench

#endif  // XFER_BENCH_UTC_TIME_H_
