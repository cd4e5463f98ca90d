// perftest's --perform_warm_up (perform_warm_up in perftest_resources.c):
// before the timed loop of a one-sided bandwidth test, each QP posts
// tx_depth work requests, post_list at a time and every one signalled, and
// waits for all of them, so that the first timed messages find the path's
// caches (the NIC's translation and QP contexts, the peer's pages) warm.
#ifndef XFER_PERFTEST_WARM_UP_H_
#define XFER_PERFTEST_WARM_UP_H_

#include "perftest/traffic_config.h"
#include "perftest/verbs_session.h"
#include "xfer/status.h"

namespace xfer::perftest {

// Errors: a failed post, a failed completion (CompletionError), kTimeout
// when config.timeout passes without a completion. Every completion it
// caused is reaped before it returns, so none reaches the timed loop.
Status PerformWarmUp(VerbsSession& session, const TrafficConfig& config);

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_WARM_UP_H_
