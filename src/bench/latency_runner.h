// The ping-pong loops of the latency tests, after perftest's
// run_iter_lat_write, run_iter_lat_send and run_iter_lat (§2.4). Iteration
// mode stamps once per message started; duration mode (-D) keeps only the
// count of the exchanges inside the sample window of a DurationTimeline and
// the window's scheduled length, as perftest does (no per-sample array, so
// no percentiles: issue #80).
#ifndef XFER_BENCH_LATENCY_RUNNER_H_
#define XFER_BENCH_LATENCY_RUNNER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "bench/bench_session.h"
#include "bench/buffer_layout.h"
#include "bench/model/duration_timeline.h"
#include "bench/model/interruption.h"
#include "bench/model/receive_refill.h"

namespace xfer::bench {

struct LatencyConfig {
  uint64_t size = 2;
  uint64_t iterations = 1000;  // iteration mode
  // Set: duration mode (-D). Each side runs its own timeline from the start
  // of its loop; an exchange counts when its answer (or read completion)
  // arrives inside the sample window. The client stops at the timeline's
  // end, the server when watch_peer says the client has.
  std::optional<DurationWindow> duration;
  bool is_server = false;
  // write_lat: each WRITE carries a notification, and each side waits for
  // the peer's (GetNotifications) instead of polling the slot's last byte.
  bool notify = false;
  // write_lat, read_lat: post through a one-entry prepared list
  // (Engine::PrepareTransfers) instead of Submit.
  bool prepared = false;
  std::chrono::milliseconds timeout{10000};
  // Asked about once a millisecond while a side waits on its peer: false
  // to go on waiting, true when the peer has finished (duration mode,
  // server side: the client decides when to stop), or the error that ends
  // the wait (the peer died: kConnectionLost, or its Abort reason). None:
  // only --timeout ends a wait.
  std::function<Result<bool>()> watch_peer;
  // A signal number there ends the loop at the next message or clock
  // reading, the size dropped (bench/model/interruption.h).
  const std::atomic<int>* stop = &NeverStopped();
};

struct LatencySamples {
  std::vector<uint64_t> stamps;  // iteration mode: one per message started (ns)
  double ticks_per_ns = 1;       //   and the cycle counter's rate over them (-C)
  uint64_t window_count = 0;     // duration mode: exchanges in the window
  uint64_t window_ns = 0;        //   and its scheduled length, D - 2*margin
};

// Clears this side's receive slot; call before the barrier of each size so
// that the byte write_lat polls starts at 0.
void ResetReceiveSlot(Session& session, const BufferLayout& layout, uint64_t size);

// write_lat: each side WRITEs `size` bytes into the peer's receive slot, the
// last byte carrying the 8-bit sequence number, then spins on its own slot's
// last byte for the peer's answer. The server writes first. In duration
// mode the client stops right after an answer arrives, so nothing is left
// in flight towards it.
Result<LatencySamples> RunWriteLatency(Session& session, const BufferLayout& layout,
                                       const LatencyConfig& config);

// read_lat (client only): READ `size` bytes, wait for the completion, repeat.
Result<LatencySamples> RunReadLatency(Session& session, const BufferLayout& layout,
                                      const LatencyConfig& config);

// send_lat: the client sends first; each side waits for a receive, re-posts
// it, and sends. PrePost() must run before the barrier, so the peer's first
// message finds a receive.
class SendLatency {
 public:
  SendLatency(Session& session, const BufferLayout& layout, const LatencyConfig& config)
      : session_(session),
        layout_(layout),
        config_(config),
        refill_(config.duration ? ReceiveRefill::kUnbounded : config.iterations) {}
  // Cancels (by disconnecting) a receive or send still in flight.
  ~SendLatency();
  Status PrePost();
  Result<LatencySamples> Run();

 private:
  Status PostReceive();
  Status AwaitReceive(bool& stopped);
  Session& session_;
  const BufferLayout& layout_;
  const LatencyConfig config_;
  // One receive is posted at a time: the pre-posted one, then one
  // replacement per message while more are to come.
  ReceiveRefill refill_;
  TransferRequest receive_;
  TransferRequest send_;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_LATENCY_RUNNER_H_
