// The ceiling of every message size of a perftest-style bandwidth run on
// the engine: what the path that carried the run could reach at best.
#ifndef XFER_BENCH_RUN_CEILINGS_H_
#define XFER_BENCH_RUN_CEILINGS_H_

#include <cstdint>
#include <map>
#include <span>

#include "bench/model/bench_params.h"
#include "bench/model/ceiling.h"
#include "xfer/engine.h"

namespace xfer::bench {

// By the connection's DataMover:
// * kCpuCopy: single-core memcpy of the message size with fixed source
//   and destination, as the bandwidth loop copies, measured on the calling
//   thread now (about 20 ms per size);
// * kKernel: unknown (a socket stack has no hardware limit to derive);
// * kNic: unknown on the engine path (`xfer doctor` derives the port and
//   PCIe ceiling of a device).
// Unknown, with the reason, for -b (two copies share the memory system, so
// no single-core figure bounds their sum) and for CUDA device memory. Empty
// for latency tests, which have no bandwidth to compare. Never fails: a
// measurement that cannot run becomes an unknown ceiling saying why.
std::map<uint64_t, Ceiling> RunCeilings(const BenchParams& params, const PeerInfo& peer,
                                        std::span<const uint64_t> sizes);

}  // namespace xfer::bench

#endif  // XFER_BENCH_RUN_CEILINGS_H_
