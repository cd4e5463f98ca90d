#include "cli/benchmark_catalog.h"

#include <array>

namespace xfer::cli {
namespace {

using bench::Kind;
using bench::Verb;

constexpr std::array<TestInfo, 8> kTests = {{
    {"write_bw", Verb::kWrite, Kind::kBandwidth, "RDMA-style WRITE bandwidth"},
    {"read_bw", Verb::kRead, Kind::kBandwidth, "RDMA-style READ bandwidth"},
    {"send_bw", Verb::kSend, Kind::kBandwidth, "two-sided SEND/RECV bandwidth"},
    {"atomic_bw", Verb::kAtomic, Kind::kBandwidth,
     "8-byte atomic bandwidth (needs RDMA verbs)"},
    {"write_lat", Verb::kWrite, Kind::kLatency, "WRITE ping-pong latency"},
    {"read_lat", Verb::kRead, Kind::kLatency, "READ round-trip latency"},
    {"send_lat", Verb::kSend, Kind::kLatency, "SEND/RECV ping-pong latency"},
    {"atomic_lat", Verb::kAtomic, Kind::kLatency,
     "8-byte atomic round-trip latency (needs RDMA verbs)"},
}};

// perftest_parameters.h: DEF_SIZE_BW, DEF_SIZE_LAT, DEF_SIZE_ATOMIC,
// DEF_ITERS_WB, DEF_ITERS, DEF_TX_BW, DEF_TX_LAT, DEF_RX_SEND, DEF_RX_RDMA.
constexpr uint64_t kSizeBw = 65536;
constexpr uint64_t kSizeLat = 2;
constexpr uint64_t kSizeAtomic = 8;
constexpr uint64_t kItersWriteBw = 5000;
constexpr uint64_t kIters = 1000;
constexpr uint32_t kTxDepthBw = 128;
constexpr uint32_t kTxDepthLat = 1;
constexpr uint32_t kRxDepthSend = 512;
constexpr uint32_t kRxDepthRdma = 1;

}  // namespace

std::span<const TestInfo> AllTests() { return kTests; }

const TestInfo* FindTest(std::string_view name) {
  if (name.starts_with("ib_")) name.remove_prefix(3);
  for (const TestInfo& test : kTests) {
    if (test.name == name) return &test;
  }
  return nullptr;
}

std::string TestNameList() {
  std::string list;
  for (const TestInfo& test : kTests) {
    if (!list.empty()) list += ", ";
    list += test.name;
  }
  return list;
}

bench::BenchParams DefaultParams(const TestInfo& test) {
  const bool bw = test.kind == Kind::kBandwidth;
  bench::BenchParams params;
  params.verb = test.verb;
  params.kind = test.kind;
  params.size = test.verb == Verb::kAtomic ? kSizeAtomic
                : bw                        ? kSizeBw
                                            : kSizeLat;
  params.iterations =
      (bw && test.verb == Verb::kWrite) ? kItersWriteBw : kIters;
  params.tx_depth = bw ? kTxDepthBw : kTxDepthLat;
  params.rx_depth = test.verb == Verb::kSend ? kRxDepthSend : kRxDepthRdma;
  return params;
}

}  // namespace xfer::cli
