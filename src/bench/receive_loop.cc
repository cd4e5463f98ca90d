#include "bench/receive_loop.h"

#include <algorithm>

#include <fmt/format.h>

#include "bench/statistics.h"
#include "common/clock.h"

namespace xfer::bench {

ReceiveLoop::ReceiveLoop(Session& session, const BufferLayout& layout, const ReceiveConfig& config)
    : session_(session), layout_(layout), config_(config), ring_(config.rx_depth) {}

ReceiveLoop::~ReceiveLoop() { Cancel(); }

void ReceiveLoop::Cancel() {
  if (ring_.empty()) return;
  (void)session_.engine->Disconnect(session_.peer);
  while (!ring_.empty()) {
    (void)ring_.oldest().Wait(config_.timeout);
    ring_.MarkReaped();
  }
}

Status ReceiveLoop::PostOne() {
  uint8_t* buffer = session_.local_slot(layout_, 0) + BufferLayout::MessageOffset(config_.size, posted_);
  XFER_RETURN_IF_ERROR(
      session_.engine->PostRecv(session_.peer, buffer, config_.size, ring_.next_to_post()));
  ring_.MarkPosted();
  ++posted_;
  return Status::Ok();
}

Status ReceiveLoop::PrePost() {
  const bool bounded = config_.duration_s <= 0;
  while (!ring_.full() && (!bounded || posted_ < config_.messages)) XFER_RETURN_IF_ERROR(PostOne());
  return Status::Ok();
}

Result<BwResult> ReceiveLoop::Run(const std::function<bool()>& stop) {
  const bool duration = config_.duration_s > 0;
  const auto timeout_ns = static_cast<uint64_t>(config_.timeout.count()) * 1'000'000;
  const auto margin_ns = static_cast<uint64_t>(config_.margin_s * 1e9);
  const auto sample_ns = static_cast<uint64_t>((config_.duration_s - 2 * config_.margin_s) * 1e9);
  uint64_t received = 0, first_ns = 0, last_ns = 0, window_start = 0, window_count = 0;
  uint64_t last_progress = NowNs();
  uint64_t spins = 0;
  while (duration ? !stop() : received < config_.messages) {
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
    if (duration) {
      // The window opens margin after the first arrival and lasts sample.
      if (window_start == 0 && last_ns - first_ns >= margin_ns) window_start = last_ns;
      if (window_start != 0 && last_ns - window_start <= sample_ns) ++window_count;
    }
    if (duration || posted_ < config_.messages) {
      if (Status st = PostOne(); !st.ok()) return Cancel(), st;
    }
  }
  Cancel();
  const uint64_t posted[1] = {duration ? window_start : first_ns};
  const uint64_t completed[1] = {duration ? window_start + sample_ns : last_ns};
  BwSamples samples;
  samples.size = config_.size;
  samples.iterations = duration ? window_count : received;
  samples.posted_ns = posted;
  samples.completed_ns = completed;
  return ComputeBandwidth(samples);
}

}  // namespace xfer::bench
