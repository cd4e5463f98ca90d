#include "perftest/warm_up.h"

#include <fmt/format.h>

#include <array>

#include "common/clock.h"
#include "perftest/completion_error.h"
#include "perftest/work_requests.h"

namespace xfer::perftest {
namespace {

constexpr int kPollBatch = 16;
// Every work request of the warm-up is signalled and none is the last.
constexpr uint32_t kEveryWr = 1;
constexpr uint64_t kNoLastWr = UINT64_MAX;

}  // namespace

Status PerformWarmUp(VerbsSession& session, const TrafficConfig& config) {
  const uint64_t timeout_ns = static_cast<uint64_t>(config.timeout.count()) * 1'000'000;
  for (uint32_t q = 0; q < session.qps(); ++q) {
    SendChain chain(session, q, config.verb, config.size, config.post_list);
    uint64_t posted = 0;
    while (posted + config.post_list <= config.tx_depth) {
      chain.Signal(posted, kEveryWr, kNoLastWr);
      XFER_RETURN_IF_ERROR(chain.Post(session.qp(q)));
      posted += config.post_list;
      chain.Advance();
    }
    std::array<ibv_wc, kPollBatch> wcs{};
    uint64_t last_progress_ns = NowNs();
    for (uint64_t completed = 0; completed < posted;) {
      const int polled = ibv_poll_cq(session.send_cq(), kPollBatch, wcs.data());
      if (polled < 0) return IoError("ibv_poll_cq on the send CQ failed during the warm-up");
      for (int i = 0; i < polled; ++i) {
        const ibv_wc& wc = wcs[static_cast<size_t>(i)];
        if (wc.status != IBV_WC_SUCCESS) return CompletionError(wc, "warm-up");
      }
      completed += static_cast<uint64_t>(polled);
      const uint64_t now = NowNs();
      if (polled > 0) {
        last_progress_ns = now;
      } else if (now - last_progress_ns > timeout_ns) {
        return Timeout(fmt::format("warm-up: no completion for {} ms ({} of {} on QP {})",
                                   config.timeout.count(), completed, posted, q));
      }
    }
  }
  return Status::Ok();
}

}  // namespace xfer::perftest
