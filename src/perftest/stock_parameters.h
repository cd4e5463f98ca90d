// What stock perftest derives from a command line, where the wire carries
// it: the message size after its UD rule (check_mtu) and the fields of the
// 6.28+ negotiation message. A 6.28+ peer compares every negotiated field
// and refuses to run on any difference, so these must equal what stock
// perftest sends for the same command line, including fields that do not
// apply to the test (atomicType is 0 outside the atomic tests).
// tests/perftest/stock_parameters_test.cc records the values perftest 6.29
// sends.
#ifndef XFER_PERFTEST_STOCK_PARAMETERS_H_
#define XFER_PERFTEST_STOCK_PARAMETERS_H_

#include <infiniband/verbs.h>

#include <cstdint>

#include "bench/model/bench_params.h"
#include "perftest/negotiation.h"

namespace xfer::perftest {

// The largest message the run sends: -s, or 2^23 with -a. On UD a message
// must fit the path MTU, and perftest then sends the MTU instead, with -a
// or where -s was not typed; a typed -s above the MTU stays (and is
// refused when the queue pairs are created).
uint64_t StockMaxMessageSize(const bench::BenchParams& params, uint64_t path_mtu_bytes);

// The negotiation message stock perftest sends: `max_size` is
// StockMaxMessageSize's; `attr` the local device's limits.
NegotiatedParams StockNegotiation(const bench::BenchParams& params, uint64_t max_size,
                                  const ibv_device_attr& attr);

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_STOCK_PARAMETERS_H_
