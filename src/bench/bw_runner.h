// The posting loop of the bandwidth tests, after perftest's run_iter_bw
// (../shared/reference/perftest.md §2.2), on libxfer's asynchronous API:
//   * a QP is an engine stream, its send queue a RequestRing;
//   * -t tx_depth bounds the messages outstanding per stream;
//   * -l post_list is the number of entries per Submit (one post call);
//   * -Q cq_mod: completions are reaped, and stamped, cq_mod messages at a
//     time, like perftest's one signaled WR per cq_mod.
// Timestamps go to statistics.h untouched.
#ifndef XFER_BENCH_BW_RUNNER_H_
#define XFER_BENCH_BW_RUNNER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "bench/bench_session.h"
#include "bench/buffer_layout.h"
#include "bench/model/duration_timeline.h"
#include "bench/model/interruption.h"
#include "bench/model/results.h"

namespace xfer::bench {

// What one bandwidth measurement at one size does.
struct BwRunConfig {
  uint64_t size = 0;
  uint64_t iterations = 0;    // per stream; ignored in duration mode
  uint32_t streams = 1;
  // Stream q targets the peer's slot remote_slot_base + q (-b keeps the
  // peer's sources, slots 0..q-1, apart from what this side writes).
  uint32_t remote_slot_base = 0;
  uint32_t tx_depth = 128;
  uint32_t cq_mod = 1;
  uint32_t post_list = 1;
  bool peak = true;
  // Set: duration mode (-D). Messages are posted until the timeline ends
  // and counted when reaped inside its sample window; the result is
  // computed over the scheduled window (DurationTimeline).
  std::optional<DurationWindow> duration;
  std::chrono::milliseconds timeout{10000};  // longest wait without progress
  // A signal number there ends the loop within about a millisecond, the
  // size dropped (bench/model/interruption.h).
  const std::atomic<int>* stop = &NeverStopped();
};

// How one message is started: a one-sided batch (Submit) or a send. Returns
// the Submit/PostSend status.
using PostFn = std::function<Status(std::span<const TransferEntry> batch, TransferRequest& request,
                                    uint32_t stream)>;

// Runs the loop and computes the result. `entries_for` is not needed: the
// message addresses follow BufferLayout. Errors: the first failed post or
// completion, kTimeout when no completion arrives within config.timeout,
// CheckInterruptedAt's when config.stop is raised.
// On error every request still in flight is cancelled by disconnecting the
// peer, so nothing refers to the loop's requests after it returns.
Result<BwResult> RunBandwidthLoop(Session& session, const BufferLayout& layout,
                                  const BwRunConfig& config, const PostFn& post);

// PostFn for one-sided READ or WRITE through Engine::Submit.
PostFn OneSidedPost(Session& session, OpCode op);
// PostFn for one-sided READ or WRITE through prepared lists
// (Engine::PrepareTransfers), the path a KV-cache mover takes: per stream,
// one list of the lcm(buffer cycle, post_list) messages the loop cycles
// through, prepared before the first post; each post submits the stream's
// next post_list entries of it. The same addresses as OneSidedPost's.
// Errors: PrepareTransfers'.
Result<PostFn> PreparedPost(Session& session, const BufferLayout& layout,
                            const BwRunConfig& config, OpCode op);
// PostFn for two-sided sends (entries of one message each; post_list 1).
PostFn SendPost(Session& session);

}  // namespace xfer::bench

#endif  // XFER_BENCH_BW_RUNNER_H_
