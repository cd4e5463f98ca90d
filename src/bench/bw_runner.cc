#include "bench/bw_runner.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "bench/model/cycle_clock.h"
#include "bench/request_ring.h"
#include "bench/model/statistics.h"
#include "common/clock.h"

namespace xfer::bench {
namespace {

// Per-stream counters, in messages (perftest's scnt / ccnt per QP).
struct StreamState {
  explicit StreamState(uint32_t slots) : ring(slots) {}
  RequestRing ring;
  uint64_t posted = 0;   // messages posted
  uint64_t done = 0;     // messages whose request finished, in order
  uint64_t reaped = 0;   // messages reaped in cq_mod units (perftest's ccnt)
};

class BandwidthLoop {
 public:
  BandwidthLoop(Session& session, const BufferLayout& layout, const BwRunConfig& config,
                const PostFn& post)
      : session_(session), layout_(layout), config_(config), post_(post) {
    const uint32_t slots = (config.tx_depth + config.post_list - 1) / config.post_list;
    for (uint32_t q = 0; q < config.streams; ++q) {
      streams_.emplace_back(slots);
    }
    const uint64_t stamps = config.peak && !config.duration ? total() : 1;
    posted_ns_.assign(stamps, 0);
    completed_ns_.assign(stamps, 0);
    batch_.resize(config.post_list);
  }

  Result<BwResult> Run();

 private:
  bool duration_mode() const { return timeline_.has_value(); }
  uint64_t total() const { return config_.iterations * config_.streams; }
  // Duration mode posts until the timeline ends, through the cool-down, as
  // perftest keeps its QPs loaded until the alarm's END.
  bool may_post() const { return !duration_mode() || phase_ != Phase::kEnd; }
  // How many requests a stream may post in one pass. A pass reads the clock
  // once, so what it reaps is counted at that reading: near a phase edge of
  // the -D timeline (closer than two full passes) a pass
  // posts one request per stream, so that completions are counted one by
  // one, as perftest counts each poll, and not in whole TX-depth batches (a
  // transport that completes inside Submit, shm, finishes a full pass at
  // once). Elsewhere passes fill the queue and read the clock once.
  uint64_t posts_per_pass() const;
  Status PostOne(uint32_t q);
  Status Reap(uint32_t q);
  bool Finished() const;
  Result<BwResult> Compute();
  void Cancel();

  Session& session_;
  const BufferLayout& layout_;
  const BwRunConfig& config_;
  const PostFn& post_;
  std::vector<StreamState> streams_;
  std::vector<TransferEntry> batch_;
  // perftest's tposted / tcompleted: cycles while peak stamps are taken,
  // nanoseconds once Run() has converted them.
  std::vector<uint64_t> posted_ns_;
  std::vector<uint64_t> completed_ns_;
  CycleCalibration calibration_;
  uint64_t total_posted_ = 0;           // totscnt
  uint64_t total_reaped_ = 0;           // totccnt
  // Duration mode: the run's clock, started in Run(), and the phase at its
  // last reading.
  using Phase = DurationTimeline::Phase;
  std::optional<DurationTimeline> timeline_;
  Phase phase_ = Phase::kWarmUp;
  uint64_t last_reading_ns_ = 0;    // the clock at the last pass that read it
  uint64_t last_full_pass_ns_ = 0;  // between readings, the last pass not narrowed
};

uint64_t BandwidthLoop::posts_per_pass() const {
  if (!duration_mode()) return std::numeric_limits<uint64_t>::max();
  const uint64_t edge = timeline_->NextBoundaryNs(last_reading_ns_);
  const bool near_edge = last_reading_ns_ + 2 * last_full_pass_ns_ >= edge;
  return near_edge ? 1 : std::numeric_limits<uint64_t>::max();
}

Status BandwidthLoop::PostOne(uint32_t q) {
  StreamState& s = streams_[q];
  // Every request carries exactly post_list messages: the CLI requires
  // iterations to be a multiple of post_list, as perftest does.
  const uint32_t count = config_.post_list;
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t offset = BufferLayout::MessageOffset(config_.size, s.posted + i);
    batch_[i].local = session_.local_slot(layout_, q) + offset;
    batch_[i].remote = session_.remote_slot(layout_, config_.remote_slot_base + q) + offset;
    batch_[i].length = config_.size;
  }
  if (config_.peak && !duration_mode()) posted_ns_[total_posted_] = ReadCycles();
  XFER_RETURN_IF_ERROR(post_(std::span(batch_.data(), count), s.ring.next_to_post(), q));
  s.ring.MarkPosted();
  s.posted += count;
  total_posted_ += count;
  return Status::Ok();
}

Status BandwidthLoop::Reap(uint32_t q) {
  StreamState& s = streams_[q];
  while (!s.ring.empty() && s.ring.oldest().done()) {
    XFER_RETURN_IF_ERROR(s.ring.oldest().Test());
    s.ring.MarkReaped();
    s.done += config_.post_list;
  }
  const bool last = !duration_mode() && s.done == config_.iterations;
  while (s.done - s.reaped >= config_.cq_mod || (last && s.reaped < s.done)) {
    const uint64_t step = std::min<uint64_t>(config_.cq_mod, s.done - s.reaped);
    s.reaped += step;
    total_reaped_ += step;
    if (config_.peak && !duration_mode()) completed_ns_[total_reaped_ - 1] = ReadCycles();
  }
  return Status::Ok();
}

bool BandwidthLoop::Finished() const {
  for (const auto& s : streams_) {
    if (!s.ring.empty()) return false;
    if (!duration_mode() && s.posted < config_.iterations) return false;
  }
  return duration_mode() ? phase_ == Phase::kEnd : true;
}

void BandwidthLoop::Cancel() {
  // Disconnecting fails every in-flight request at once; wait for each so
  // that none still references this loop's rings when they are destroyed.
  (void)session_.engine->Disconnect(session_.peer);
  for (auto& s : streams_) {
    while (!s.ring.empty()) {
      (void)s.ring.oldest().Wait(config_.timeout);
      s.ring.MarkReaped();
    }
  }
}

Result<BwResult> BandwidthLoop::Run() {
  calibration_.Begin();
  const uint64_t start_ns = NowNs();
  if (config_.duration) timeline_.emplace(*config_.duration, start_ns);
  if (!duration_mode()) posted_ns_[0] = start_ns;
  last_reading_ns_ = start_ns;
  uint64_t last_progress = start_ns;
  uint64_t spins = 0;
  const auto timeout_ns = static_cast<uint64_t>(config_.timeout.count()) * 1'000'000;
  while (!Finished()) {
    const uint64_t posted_before = total_posted_;
    const uint64_t reaped_before = total_reaped_;
    const uint64_t pass_posts = posts_per_pass();
    for (uint32_t q = 0; q < config_.streams; ++q) {
      StreamState& s = streams_[q];
      for (uint64_t n = 0;
           n < pass_posts && may_post() && !s.ring.full() &&
           (duration_mode() || s.posted < config_.iterations) &&
           s.posted + config_.post_list <= config_.tx_depth + s.reaped;
           ++n) {
        if (Status st = PostOne(q); !st.ok()) return Cancel(), st;
      }
      if (Status st = Reap(q); !st.ok()) return Cancel(), st;
    }
    const bool progress = total_posted_ != posted_before || total_reaped_ != reaped_before;
    if (progress || (++spins & 1023) == 0) {
      const uint64_t now = NowNs();
      if (progress) last_progress = now;
      // What was reaped in this pass counts as finishing at this reading.
      if (duration_mode()) {
        phase_ = timeline_->Record(now, total_reaped_ - reaped_before);
        if (pass_posts > 1) {
          last_full_pass_ns_ = now - last_reading_ns_;
        }
        last_reading_ns_ = now;
      }
      if (Status interrupted = CheckInterruptedAt(*config_.stop, config_.size);
          !interrupted.ok()) {
        Cancel();
        return interrupted;
      }
      if (now - last_progress > timeout_ns) {
        Cancel();
        return Timeout(fmt::format("no completion for {} ms at size {}; is the peer alive?",
                                   config_.timeout.count(), config_.size));
      }
    }
  }
  return Compute();
}

Result<BwResult> BandwidthLoop::Compute() {
  if (duration_mode()) {
    return ComputeBandwidthDuration(config_.size, timeline_->sample_count(),
                                    timeline_->sample_ns());
  }
  if (!config_.peak) completed_ns_[0] = NowNs();
  if (config_.peak) {
    calibration_.End();
    calibration_.ToNs(posted_ns_);
    calibration_.ToNs(completed_ns_);
  }
  BwSamples samples;
  samples.size = config_.size;
  samples.iterations = total();
  samples.cq_mod = config_.cq_mod;
  samples.post_list = config_.post_list;
  samples.peak = config_.peak;
  samples.posted_ns = posted_ns_;
  samples.completed_ns = completed_ns_;
  return ComputeBandwidth(samples);
}

}  // namespace

Result<BwResult> RunBandwidthLoop(Session& session, const BufferLayout& layout,
                                  const BwRunConfig& config, const PostFn& post) {
  BandwidthLoop loop(session, layout, config, post);
  return loop.Run();
}

PostFn OneSidedPost(Session& session, OpCode op) {
  return [&session, op](std::span<const TransferEntry> batch, TransferRequest& request,
                        uint32_t stream) {
    return session.engine->Submit(session.peer, op, batch, request, stream);
  };
}

Result<PostFn> PreparedPost(Session& session, const BufferLayout& layout,
                            const BwRunConfig& config, OpCode op) {
  const uint64_t length = std::lcm(BufferLayout::MessagesPerCycle(config.size),
                                   uint64_t{config.post_list});
  if (length > std::numeric_limits<uint32_t>::max()) {
    return InvalidArgument("--prepared: the list would exceed 2^32 entries");
  }
  struct StreamList {
    PreparedTransfers list;
    uint64_t posted = 0;  // batches submitted
  };
  auto lists = std::make_shared<std::vector<StreamList>>(config.streams);
  for (uint32_t q = 0; q < config.streams; ++q) {
    std::vector<TransferEntry> entries(length);
    for (uint64_t i = 0; i < length; ++i) {
      const uint64_t offset = BufferLayout::MessageOffset(config.size, i);
      entries[i] = {session.local_slot(layout, q) + offset,
                    session.remote_slot(layout, config.remote_slot_base + q) + offset,
                    config.size};
    }
    auto list = session.engine->PrepareTransfers(session.peer, entries);
    if (!list.ok()) return list.status().WithContext("--prepared");
    (*lists)[q].list = std::move(*list);
  }
  const auto per_batch = config.post_list;
  const uint64_t batches = length / per_batch;
  return PostFn([&session, lists, per_batch, batches, op](
                    std::span<const TransferEntry> batch, TransferRequest& request,
                    uint32_t stream) {
    StreamList& s = (*lists)[stream];
    const auto first = static_cast<uint32_t>((s.posted % batches) * per_batch);
    (void)batch;  // the same addresses, from the list
    Status status = session.engine->SubmitPrepared(s.list, op, first, per_batch, request,
                                                   SubmitOptions{stream, {}});
    if (status.ok()) ++s.posted;
    return status;
  });
}

PostFn SendPost(Session& session) {
  return [&session](std::span<const TransferEntry> batch, TransferRequest& request,
                    uint32_t stream) {
    if (batch.size() != 1) return InvalidArgument("send tests post one message per request (-l 1)");
    return session.engine->PostSend(session.peer, batch[0].local, batch[0].length, request, stream);
  };
}

}  // namespace xfer::bench
