// perftest 6.28+'s parameter negotiation (P5, ../shared/reference/perftest.md
// §1.3): each side sends the flags both must agree on, then checks the
// peer's copy and refuses to run on a mismatch. The message is 320 bytes,
// the layout of a stock (mlx5dv-enabled) x86_64 build.
#ifndef XFER_PERFTEST_NEGOTIATION_H_
#define XFER_PERFTEST_NEGOTIATION_H_

#include <infiniband/verbs.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "xfer/status.h"

namespace xfer::perftest {

inline constexpr size_t kNegotiationSize = 320;

// Whether this pair negotiates: iff both advertise 6.28 or later.
inline constexpr double kNegotiationVersion = 6.28;

// The negotiated fields in perftest's own enum codes (HEAD): verb SEND=0
// WRITE=2 READ=4 ATOMIC=5; connection RC=0 UC=1 UD=2; tst LAT=0 BW=1;
// atomic CMP_AND_SWAP=0 FETCH_AND_ADD=1; test_type ITERATIONS=0
// DURATION=1; report_fmt GBS=0 MBS=1; test_method RUN_REGULAR=0 RUN_ALL=1.
struct NegotiatedParams {
  int32_t test_method = 0;
  int32_t connection_type = 0;
  int32_t verb = 0;
  int32_t tst = 0;
  int32_t atomic_type = 0;
  int32_t test_type = 0;
  int32_t report_fmt = 1;
  uint64_t size = 0;   // 8388608 with -a
  uint64_t iters = 0;  // 0 in duration mode
  int32_t num_of_qps = 1;
  int32_t duration = 5;  // perftest's default even in iteration mode
  int32_t use_rdma_cm = 0;
  // The device's limits, sent raw in host byte order as perftest does;
  // only max_qp_rd_atom is read back.
  ibv_device_attr device_attr{};
};

std::array<uint8_t, kNegotiationSize> EncodeNegotiation(const NegotiatedParams& params);

// Errors: kProtocolError for a wrong size.
Result<NegotiatedParams> DecodeNegotiation(std::span<const uint8_t> bytes);

// perftest's comparison: every field but the device limits must be equal.
// Errors: kInvalidArgument listing each mismatch as perftest words it, with
// the flag that controls it: "size mismatch (-s): local=65536, remote=4096".
Status CompareNegotiation(const NegotiatedParams& local, const NegotiatedParams& remote);

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_NEGOTIATION_H_
