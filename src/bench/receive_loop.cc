#include "bench/receive_loop.h"

#include <algorithm>

#include <fmt/format.h>

#include "bench/model/statistics.h"
#include "common/clock.h"

namespace xfer::bench {

ReceiveLoop::ReceiveLoop(Session& session, const BufferLayout& layout, const ReceiveConfig& config)
    : session_(session),
      layout_(layout),
      config_(config),
      ring_(config.rx_depth),
      refill_(config.duration ? ReceiveRefill::kUnbounded : config.messages) {}

ReceiveLoop::~ReceiveLoop() { Cancel(); }

void ReceiveLoop::Cancel() {
  if (ring_.empty()) return;
  (void)session_.engine->Disconnect(session_.peer);
  while (!ring_.empty()) {
    (void)ring_.oldest().Wait(config_.timeout);
    ring_.MarkReaped();
  }
}

// REQUIRES: refill_.TakeOne() said yes; the receive is number
// refill_.posted() - 1.
Status ReceiveLoop::PostOne() {
  const uint64_t index = refill_.posted() - 1;
  uint8_t* buffer = session_.local_slot(layout_, 0) + BufferLayout::MessageOffset(config_.size, index);
  XFER_RETURN_IF_ERROR(
      session_.engine->PostRecv(session_.peer, buffer, config_.size, ring_.next_to_post()));
  ring_.MarkPosted();
  return Status::Ok();
}

Status ReceiveLoop::PrePost() {
  while (!ring_.full() && refill_.TakeOne()) XFER_RETURN_IF_ERROR(PostOne());
  return Status::Ok();
}

Result<BwResult> ReceiveLoop::Run(const std::function<bool()>& stop) {
  const auto timeout_ns = static_cast<uint64_t>(config_.timeout.count()) * 1'000'000;
  std::optional<DurationTimeline> timeline;
  if (config_.duration) timeline.emplace(*config_.duration, NowNs());
  uint64_t received = 0, first_ns = 0, last_ns = 0;
  uint64_t last_progress = NowNs();
  uint64_t spins = 0;
  while (timeline ? !stop() : received < config_.messages) {
    if (ring_.empty() || !ring_.oldest().done()) {
      if ((++spins & 1023) == 0 && NowNs() - last_progress > timeout_ns) {
        Cancel();
        return Timeout(fmt::format("received {} of {} messages; nothing arrived for {} ms",
                                   received, config_.messages, config_.timeout.count()));
      }
      continue;
    }
    if (Status st = ring_.oldest().Test(); !st.ok()) return Cancel(), st;
    ring_.MarkReaped();
    last_progress = last_ns = NowNs();
    if (received++ == 0) first_ns = last_ns;
    if (timeline) timeline->Record(last_ns);
    if (refill_.TakeOne()) {
      if (Status st = PostOne(); !st.ok()) return Cancel(), st;
    }
  }
  Cancel();
  if (timeline) {
    return ComputeBandwidthDuration(config_.size, timeline->sample_count(), timeline->sample_ns());
  }
  const uint64_t posted[1] = {first_ns};
  const uint64_t completed[1] = {last_ns};
  BwSamples samples;
  samples.size = config_.size;
  samples.iterations = received;
  samples.posted_ns = posted;
  samples.completed_ns = completed;
  return ComputeBandwidth(samples);
}

}  // namespace xfer::bench
