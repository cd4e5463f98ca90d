#include "bench/rail_sampler.h"

#include <system_error>

#include <fmt/format.h>

namespace xfer::bench {

RailSampler::RailSampler(Engine& engine, PeerId peer, std::chrono::milliseconds interval)
    : engine_(engine), peer_(peer), interval_(interval) {
  timeline_.interval = interval;
}

RailSampler::~RailSampler() { (void)Stop(); }

Status RailSampler::Start() {
  auto info = engine_.GetPeerInfo(peer_);
  if (!info.ok()) return info.status().WithContext("--timeline");
  std::lock_guard lock(mu_);
  for (const RailInfo& rail : info->rails) last_bytes_.push_back(rail.bytes);
  start_ = std::chrono::steady_clock::now();
  timeline_.start = std::chrono::system_clock::now();
  try {
    thread_ = std::thread([this] { Run(); });
  } catch (const std::system_error& e) {
    return ResourceExhausted(fmt::format("--timeline: cannot start its thread: {}", e.what()));
  }
  return Status::Ok();
}

void RailSampler::Run() {
  std::unique_lock lock(mu_);
  for (int64_t k = 1;; ++k) {
    const auto due = start_ + k * interval_;
    if (stop_cv_.wait_until(lock, due, [&] { return stopping_; })) return;
    lock.unlock();
    Sample(static_cast<uint64_t>((k * interval_).count()));
    lock.lock();
  }
}

void RailSampler::Sample(uint64_t end_ms) {
  auto info = engine_.GetPeerInfo(peer_);
  std::lock_guard lock(mu_);
  RailTimeline::Sample sample{end_ms, {}, {}};
  if (info.ok()) {
    for (size_t i = 0; i < info->rails.size() && i < last_bytes_.size(); ++i) {
      const uint64_t now = info->rails[i].bytes;
      sample.bytes.push_back(now >= last_bytes_[i] ? now - last_bytes_[i] : 0);
      sample.up.push_back(info->rails[i].up);
      last_bytes_[i] = now;
    }
    timeline_.rails = info->rails;
  }
  timeline_.samples.push_back(std::move(sample));
}

RailTimeline RailSampler::Stop() {
  {
    std::lock_guard lock(mu_);
    if (!thread_.joinable()) return timeline_;
    stopping_ = true;
  }
  stop_cv_.notify_all();
  thread_.join();
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start_);
  uint64_t last_end = 0;
  {
    std::lock_guard lock(mu_);
    if (!timeline_.samples.empty()) last_end = timeline_.samples.back().end_ms;
  }
  // The interval the run ended in, cut short: kept when it is at least
  // half an interval (a sliver's rate is one slice's noise).
  if (static_cast<uint64_t>(elapsed.count()) >=
      last_end + static_cast<uint64_t>(interval_.count()) / 2) {
    Sample(static_cast<uint64_t>(elapsed.count()));
  }
  std::lock_guard lock(mu_);
  return timeline_;
}

}  // namespace xfer::bench
