// perftest's bandwidth engines over verbs (../shared/reference/perftest.md
// §2.2): the posting side (run_iter_bw: tx-depth window per QP, post lists,
// one signalled WR per cq_mod, stamps per post and per completion) and the
// receiving side of send_bw (run_iter_bw_server: timed from the first
// receive to the last).
#ifndef XFER_PERFTEST_BW_TRAFFIC_H_
#define XFER_PERFTEST_BW_TRAFFIC_H_

#include "bench/model/results.h"
#include "perftest/traffic_config.h"
#include "perftest/verbs_session.h"
#include "xfer/status.h"

namespace xfer::perftest {

// Posts config.iterations messages on every QP (or for the duration) and
// returns the row perftest would print for this side.
// Errors: kIoError naming a failed completion (its ibv_wc_status_str, QP,
// opcode); kTimeout when no completion arrives within config.timeout.
Result<bench::BwResult> RunBandwidthSender(VerbsSession& session, const TrafficConfig& config);

// send_bw's receiver: posts its first rx_depth receives per QP. Call before
// the pre-run barrier so that no message finds the queue empty.
Status PrePostReceives(VerbsSession& session, const TrafficConfig& config);

// Counts iterations x QPs receives (or for the duration), re-posting as
// perftest does, and returns the receive side's row (no peak).
// Errors: kIoError for a failed receive (e.g. a message longer than -s:
// the peer runs another size); kTimeout when no message arrives within
// config.timeout, naming how many of how many came.
Result<bench::BwResult> RunBandwidthReceiver(VerbsSession& session, const TrafficConfig& config);

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_BW_TRAFFIC_H_
