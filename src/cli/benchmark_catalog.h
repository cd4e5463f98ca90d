// The eight benchmarks `xfer` runs, named after perftest's tools without the
// "ib_" prefix, and the perftest defaults each one starts from. atomic_bw
// and atomic_lat need RDMA verbs.
#ifndef XFER_CLI_BENCHMARK_CATALOG_H_
#define XFER_CLI_BENCHMARK_CATALOG_H_

#include <span>
#include <string>
#include <string_view>

#include "bench/model/bench_params.h"

namespace xfer::cli {

struct TestInfo {
  std::string_view name;  // "write_bw"
  bench::Verb verb;
  bench::Kind kind;
  std::string_view summary;  // one line for `xfer --help`
};

// All tests in help order. The storage is static; never empty.
std::span<const TestInfo> AllTests();

// The test called `name`; perftest's own tool names ("ib_write_bw") are
// accepted too. Returns nullptr when there is no such test.
const TestInfo* FindTest(std::string_view name);

// "write_bw, read_bw, send_bw, atomic_bw, write_lat, read_lat, send_lat,
// atomic_lat".
std::string TestNameList();

// The parameters of `test` before any flag: perftest's per-test defaults
// (size 65536 BW / 2 LAT / 8 atomic, iterations 5000 write_bw / 1000
// otherwise, tx_depth 128 BW / 1 LAT, rx_depth 512 send / 1 otherwise).
bench::BenchParams DefaultParams(const TestInfo& test);

}  // namespace xfer::cli

#endif  // XFER_CLI_BENCHMARK_CATALOG_H_
