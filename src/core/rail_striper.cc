#include "core/rail_striper.h"

#include <algorithm>
#include <array>
#include <cassert>

namespace xfer::core {
namespace {

// A rail's start when no rail's rate is known: 10 Gb/s, the slowest link a
// rail is worth striping over. Only the ratio between rails matters.
constexpr double kUnknownRate = 1.25e9;

int64_t Nanoseconds(RailStriper::Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace

RailStriper::RailStriper(std::span<const double> nominal_bytes_per_sec, Options options)
    : options_(options),
      rails_storage_(std::make_unique<Rail[]>(nominal_bytes_per_sec.size())),
      rails_(rails_storage_.get(), nominal_bytes_per_sec.size()) {
  assert(!rails_.empty() && rails_.size() <= kMaxRails);
  const double fastest =
      *std::max_element(nominal_bytes_per_sec.begin(), nominal_bytes_per_sec.end());
  for (size_t i = 0; i < rails_.size(); ++i) {
    const double nominal = nominal_bytes_per_sec[i];
    rails_[i].bytes_per_sec.store(nominal > 0 ? nominal : fastest > 0 ? fastest : kUnknownRate,
                                  std::memory_order_relaxed);
  }
}

int RailStriper::Best(uint64_t bytes, std::span<const uint64_t> planned, int except) const {
  int best = -1;
  double best_score = 0;
  for (uint32_t i = 0; i < rails_.size(); ++i) {
    const Rail& rail = rails_[i];
    if (static_cast<int>(i) == except || !rail.up.load(std::memory_order_relaxed)) continue;
    const auto load = static_cast<double>(rail.in_flight.load(std::memory_order_relaxed) +
                                          planned[i] + bytes);
    const double score = load / rail.bytes_per_sec.load(std::memory_order_relaxed);
    if (best < 0 || score < best_score) {
      best = static_cast<int>(i);
      best_score = score;
    }
  }
  return best;
}

uint32_t RailStriper::FirstLightlyLoaded() const {
  uint64_t least = UINT64_MAX;
  for (const Rail& rail : rails_) {
    if (!rail.up.load(std::memory_order_relaxed)) continue;
    least = std::min(least, rail.in_flight.load(std::memory_order_relaxed));
  }
  for (uint32_t i = 0; i < rails_.size(); ++i) {
    if (!rails_[i].up.load(std::memory_order_relaxed)) continue;
    if (rails_[i].in_flight.load(std::memory_order_relaxed) <= least + options_.slice_unit) {
      return i;
    }
  }
  return 0;
}

uint32_t RailStriper::NthUp(uint64_t n) const {
  uint32_t up = 0;
  for (const Rail& rail : rails_) up += rail.up.load(std::memory_order_relaxed) ? 1u : 0u;
  if (up == 0) return 0;
  uint64_t k = n % up;
  for (uint32_t i = 0; i < rails_.size(); ++i) {
    if (!rails_[i].up.load(std::memory_order_relaxed)) continue;
    if (k-- == 0) return i;
  }
  return 0;
}

void RailStriper::SetUp(uint32_t rail, bool up) {
  rails_[rail].up.store(up, std::memory_order_release);
}

bool RailStriper::AnyUp() const {
  return std::any_of(rails_.begin(), rails_.end(),
                     [](const Rail& rail) { return rail.up.load(std::memory_order_acquire); });
}

int RailStriper::Redeal(uint64_t bytes, uint32_t except) {
  const std::array<uint64_t, kMaxRails> none{};
  const int rail = Best(bytes, none, static_cast<int>(except));
  if (rail >= 0) rails_[static_cast<size_t>(rail)].in_flight.fetch_add(bytes, std::memory_order_relaxed);
  return rail;
}

void RailStriper::Deal(uint64_t bytes, std::vector<Slice>& out) {
  assert(bytes > 0);
  const uint64_t request = requests_.fetch_add(1, std::memory_order_relaxed);
  const auto rails = static_cast<uint32_t>(rails_.size());
  std::array<uint64_t, kMaxRails> planned{};
  const auto charge = [&](uint32_t rail, uint64_t charged) {
    rails_[rail].in_flight.fetch_add(charged, std::memory_order_relaxed);
  };
  const auto whole = [&](uint32_t rail) {
    out.push_back({rail, 0, bytes});
    charge(rail, bytes);
  };
  if (rails == 1) return whole(0);
  if (options_.probe_every != 0 && request % options_.probe_every == options_.probe_every - 1) {
    return whole(NthUp(request / options_.probe_every));
  }
  if (bytes < options_.stripe_from_bytes) return whole(FirstLightlyLoaded());
  // Slices of whole units, as many as max_slices allows.
  const uint64_t unit = options_.slice_unit;
  uint64_t slice = unit;
  if ((bytes + unit - 1) / unit > options_.max_slices) {
    const uint64_t even = (bytes + options_.max_slices - 1) / options_.max_slices;
    slice = (even + unit - 1) / unit * unit;
  }
  const size_t first = out.size();
  for (uint64_t offset = 0; offset < bytes;) {
    uint64_t length = std::min(slice, bytes - offset);
    const uint64_t rest = bytes - offset - length;
    if (rest != 0 && rest < slice / 4) length += rest;  // a short tail joins this slice
    const auto rail = static_cast<uint32_t>(std::max(Best(length, planned), 0));
    planned[rail] += length;
    if (out.size() > first && out.back().rail == rail) {
      out.back().length += length;
    } else {
      out.push_back({rail, offset, length});
    }
    offset += length;
  }
  for (uint32_t i = 0; i < rails; ++i) {
    if (planned[i] != 0) charge(i, planned[i]);
  }
}

void RailStriper::Completed(uint32_t rail_index, uint64_t bytes, Clock::time_point finished,
                            bool ok) {
  Rail& rail = rails_[rail_index];
  const uint64_t left = rail.in_flight.fetch_sub(bytes, std::memory_order_relaxed) - bytes;
  if (ok) {
    rail.bytes.fetch_add(bytes, std::memory_order_relaxed);
    rail.slices.fetch_add(1, std::memory_order_relaxed);
  }
  using std::chrono::nanoseconds;
  constexpr int64_t kMinBusyNs = std::chrono::duration_cast<nanoseconds>(kMinBusy).count();
  constexpr int64_t kHorizonNs = std::chrono::duration_cast<nanoseconds>(kHorizon).count();
  const int64_t end = Nanoseconds(finished);
  std::lock_guard lock(rail.mu);
  // Saturated since the last completion: its time and these bytes count.
  const bool saturated = rail.last_completion_ns != 0 && end > rail.last_completion_ns &&
                         rail.left_then >= 2 * options_.slice_unit;
  if (ok && saturated) {
    rail.busy_bytes += bytes;
    rail.busy_ns += end - rail.last_completion_ns;
    if (rail.busy_ns >= kMinBusyNs) {
      rail.bytes_per_sec.store(static_cast<double>(rail.busy_bytes) * 1e9 /
                                   static_cast<double>(rail.busy_ns),
                               std::memory_order_relaxed);
    }
    if (rail.busy_ns > kHorizonNs) {  // the older half goes
      rail.busy_bytes /= 2;
      rail.busy_ns /= 2;
    }
  }
  rail.last_completion_ns = std::max(rail.last_completion_ns, end);
  rail.left_then = left;
}

RailStriper::RailStats RailStriper::Stats(uint32_t rail_index) const {
  const Rail& rail = rails_[rail_index];
  return {rail.bytes.load(std::memory_order_relaxed), rail.slices.load(std::memory_order_relaxed),
          rail.in_flight.load(std::memory_order_relaxed),
          rail.bytes_per_sec.load(std::memory_order_relaxed), rail.up.load(std::memory_order_relaxed)};
}

}  // namespace xfer::core
