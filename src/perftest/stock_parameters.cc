#include "perftest/stock_parameters.h"

namespace xfer::perftest {
namespace {

using bench::Verb;

// perftest's -a stops at 2^23 bytes (MAX_SIZE).
constexpr uint64_t kMaxAllSize = uint64_t{1} << 23;
// perftest's DEF_DURATION: sent even in iteration mode.
constexpr int32_t kDefaultDuration = 5;

int32_t VerbCode(Verb verb) {
  switch (verb) {
    case Verb::kSend: return 0;
    case Verb::kWrite: return 2;
    case Verb::kRead: return 4;
    case Verb::kAtomic: return 5;
  }
  return 0;
}

}  // namespace

uint64_t StockMaxMessageSize(const bench::BenchParams& params, uint64_t path_mtu_bytes) {
  const uint64_t size = params.all_sizes ? kMaxAllSize : params.size;
  const bool clamps = params.verbs.connection == bench::Connection::kUD &&
                      size > path_mtu_bytes && (params.all_sizes || !params.size_given);
  return clamps ? path_mtu_bytes : size;
}

NegotiatedParams StockNegotiation(const bench::BenchParams& params, uint64_t max_size,
                                  const ibv_device_attr& attr) {
  NegotiatedParams n;
  n.test_method = params.all_sizes ? 1 : 0;  // RUN_ALL : RUN_REGULAR
  n.connection_type = static_cast<int32_t>(params.verbs.connection);  // RC=0 UC=1 UD=2
  n.verb = VerbCode(params.verb);
  n.tst = params.kind == bench::Kind::kLatency ? 0 : 1;
  // perftest sets atomicType only in the atomic tests; elsewhere it stays
  // at the zeroed CMP_AND_SWAP.
  n.atomic_type = params.verb == Verb::kAtomic &&
                          params.verbs.atomic_type == bench::AtomicType::kFetchAndAdd
                      ? 1
                      : 0;
  n.test_type = params.duration_s > 0 ? 1 : 0;  // DURATION : ITERATIONS
  n.report_fmt = params.units == bench::BwUnits::kGbps ? 0 : 1;  // GBS : MBS
  n.size = max_size;
  n.iters = params.duration_s > 0 ? 0 : params.iterations;
  n.num_of_qps = static_cast<int32_t>(params.qps);
  n.duration = params.duration_s > 0 ? static_cast<int32_t>(params.duration_s) : kDefaultDuration;
  n.device_attr = attr;
  return n;
}

}  // namespace xfer::perftest
