// perftest's latency engines over verbs (../shared/reference/perftest.md
// §2.4): write_lat's ping-pong on the last payload byte (the server sends
// first), send_lat's ping-pong on pre-posted receives (the client sends
// first), and read_lat / atomic_lat's one-at-a-time round trips.
#ifndef XFER_PERFTEST_LAT_TRAFFIC_H_
#define XFER_PERFTEST_LAT_TRAFFIC_H_

#include <cstdint>
#include <vector>

#include "perftest/traffic_config.h"
#include "perftest/verbs_session.h"
#include "xfer/status.h"

namespace xfer::perftest {

// One side's measurement: a stamp before every post (iteration mode), or
// the exchanges counted inside the duration window and its length.
struct LatencyStamps {
  std::vector<uint64_t> posted_ns;
  double ticks_per_ns = 1;  // the cycle counter's rate over them (-C)
  uint64_t window_count = 0;
  uint64_t window_ns = 0;
};

// Errors (all): kIoError for a failed completion; kTimeout when the peer
// goes silent for config.timeout mid-run.
Result<LatencyStamps> RunWriteLatency(VerbsSession& session, const TrafficConfig& config);

// REQUIRES: PrePostReceives(session, config) before the pre-run barrier.
Result<LatencyStamps> RunSendLatency(VerbsSession& session, const TrafficConfig& config);

// read_lat and atomic_lat: the client posts, the server takes no part.
Result<LatencyStamps> RunReadLatency(VerbsSession& session, const TrafficConfig& config);

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_LAT_TRAFFIC_H_
