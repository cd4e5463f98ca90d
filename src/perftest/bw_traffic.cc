#include "perftest/bw_traffic.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "bench/model/cycle_clock.h"
#include "bench/model/duration_timeline.h"
#include "bench/model/receive_refill.h"
#include "bench/model/statistics.h"
#include "common/clock.h"
#include "perftest/completion_error.h"
#include "perftest/work_requests.h"

namespace xfer::perftest {
namespace {

using Phase = bench::DurationTimeline::Phase;

constexpr int kPollBatch = 16;
// Duration mode: no per-QP message limit (and so no limit on receives).
constexpr uint64_t kNever = bench::ReceiveRefill::kUnbounded;

uint64_t TimeoutNs(const TrafficConfig& config) {
  return static_cast<uint64_t>(config.timeout.count()) * 1'000'000ull;
}

// Per-QP posting state of the sender.
struct QpProgress {
  SendChain chain;
  uint64_t posted = 0;
  uint64_t completed = 0;
};

Result<bench::BwResult> Finish(const TrafficConfig& config, uint64_t n, bool peak,
                               std::vector<uint64_t>& posted, std::vector<uint64_t>& completed,
                               const bench::CycleCalibration& calibration, uint32_t cq_mod) {
  calibration.ToNs(posted);
  calibration.ToNs(completed);
  bench::BwSamples samples;
  samples.size = config.size;
  samples.iterations = n;
  samples.cq_mod = cq_mod;
  samples.post_list = config.post_list;
  samples.peak = peak;
  samples.posted_ns = posted;
  samples.completed_ns = completed;
  return bench::ComputeBandwidth(samples);
}

}  // namespace

Result<bench::BwResult> RunBandwidthSender(VerbsSession& session, const TrafficConfig& config) {
  const uint32_t qps = session.qps();
  const bool duration = config.duration.has_value();
  const uint64_t per_qp = duration ? kNever : config.iterations;
  const uint64_t last_wr = duration ? kNever : config.iterations - 1;
  const uint64_t total = duration ? 0 : config.iterations * qps;
  const bool peak = config.peak && !duration;
  std::vector<uint64_t> posted(peak ? total : 1, 0);
  std::vector<uint64_t> completed(peak ? total : 1, 0);

  std::vector<QpProgress> progress;
  progress.reserve(qps);
  for (uint32_t q = 0; q < qps; ++q) {
    progress.push_back({SendChain(session, q, config.verb, config.size, config.post_list)});
  }
  // send_bw -b: this side's receives, as RunBandwidthReceiver keeps them.
  std::vector<ReceivePoster> posters;
  std::vector<bench::ReceiveRefill> refills;
  if (config.receive_too) {
    posters.reserve(qps);
    for (uint32_t q = 0; q < qps; ++q) posters.emplace_back(session, q, config.size);
    refills.assign(qps, bench::ReceiveRefill(per_qp, session.rx_depth()));
  }
  uint64_t total_received = 0;
  auto receiving = [&] { return config.receive_too && !duration && total_received < total; };

  bench::CycleCalibration calibration;
  calibration.Begin();
  const uint64_t start_ns = NowNs();
  std::optional<bench::DurationTimeline> timeline;
  if (duration) timeline.emplace(*config.duration, start_ns);
  Phase phase = duration ? timeline->At(start_ns) : Phase::kSample;
  uint64_t total_posted = 0;
  uint64_t total_completed = 0;
  uint64_t last_progress_ns = start_ns;
  if (!peak && !duration) posted[0] = bench::ReadCycles();

  std::array<ibv_wc, kPollBatch> wcs{};
  while (duration ? phase != Phase::kEnd : (total_completed < total || receiving())) {
    const bool may_post = !duration || phase != Phase::kEnd;
    for (uint32_t q = 0; q < qps && may_post; ++q) {
      QpProgress& p = progress[q];
      while (p.posted < per_qp && p.posted + config.post_list <= config.tx_depth + p.completed) {
        p.chain.Signal(p.posted, config.cq_mod, last_wr);
        if (peak) posted[total_posted] = bench::ReadCycles();
        XFER_RETURN_IF_ERROR(p.chain.Post(session.qp(q)));
        p.posted += config.post_list;
        total_posted += config.post_list;
        p.chain.Advance();
      }
    }
    const int polled = ibv_poll_cq(session.send_cq(), kPollBatch, wcs.data());
    if (polled < 0) return IoError("ibv_poll_cq on the send CQ failed");
    const uint64_t now = polled > 0 || duration ? NowNs() : 0;
    uint64_t credits = 0;  // messages these completions account for
    for (int i = 0; i < polled; ++i) {
      const ibv_wc& wc = wcs[static_cast<size_t>(i)];
      if (wc.status != IBV_WC_SUCCESS) return CompletionError(wc, "send");
      QpProgress& p = progress[wc.wr_id];
      // perftest's fill_count: the last batch of a QP may be short.
      const uint64_t credit = std::min<uint64_t>(config.cq_mod, per_qp - p.completed);
      p.completed += credit;
      total_completed += credit;
      credits += credit;
      if (peak) completed[total_completed - 1] = bench::ReadCycles();
    }
    if (duration) phase = timeline->Record(now, credits);
    int received = 0;
    if (config.receive_too) {
      received = ibv_poll_cq(session.recv_cq(), kPollBatch, wcs.data());
      if (received < 0) return IoError("ibv_poll_cq on the receive CQ failed");
      for (int i = 0; i < received; ++i) {
        const ibv_wc& wc = wcs[static_cast<size_t>(i)];
        if (wc.status != IBV_WC_SUCCESS) return CompletionError(wc, "receive");
        ++total_received;
        if (refills[wc.wr_id].TakeOne()) {
          XFER_RETURN_IF_ERROR(posters[wc.wr_id].Post(session.qp(static_cast<uint32_t>(wc.wr_id))));
        }
      }
    }
    if (polled > 0 || received > 0) {
      last_progress_ns = polled > 0 ? now : NowNs();
    } else if (!duration || phase == Phase::kEnd) {
      const uint64_t idle_check = NowNs();
      if (idle_check - last_progress_ns > TimeoutNs(config)) {
        return Timeout(fmt::format(
            "no completion for {} ms ({} of {} messages sent{}); the peer or the path stopped",
            config.timeout.count(), total_completed, total,
            config.receive_too ? fmt::format(", {} received", total_received) : ""));
      }
    }
  }
  if (duration) {
    if (timeline->sample_count() == 0) {
      return Timeout("no send completed inside the duration window (-D); is the path up?");
    }
    return bench::ComputeBandwidthDuration(config.size, timeline->sample_count(),
                                           timeline->sample_ns());
  }
  if (!peak) completed[0] = bench::ReadCycles();
  calibration.End();
  return Finish(config, total, peak, posted, completed, calibration, config.cq_mod);
}

Status PrePostReceives(VerbsSession& session, const TrafficConfig& config) {
  for (uint32_t q = 0; q < session.qps(); ++q) {
    ReceivePoster poster(session, q, config.size);
    XFER_RETURN_IF_ERROR(poster.Post(session.qp(q), session.rx_depth()));
  }
  return Status::Ok();
}

Result<bench::BwResult> RunBandwidthReceiver(VerbsSession& session, const TrafficConfig& config) {
  const uint32_t qps = session.qps();
  const bool duration = config.duration.has_value();
  const uint64_t per_qp = duration ? kNever : config.iterations;
  const uint64_t total = duration ? 0 : config.iterations * qps;
  std::vector<ReceivePoster> posters;
  posters.reserve(qps);
  for (uint32_t q = 0; q < qps; ++q) posters.emplace_back(session, q, config.size);
  // PrePostReceives already gave every QP rx_depth receives.
  std::vector<bench::ReceiveRefill> refills(qps, bench::ReceiveRefill(per_qp, session.rx_depth()));

  std::vector<uint64_t> first(1, 0);
  std::vector<uint64_t> last(1, 0);
  bench::CycleCalibration calibration;
  calibration.Begin();
  const uint64_t start_ns = NowNs();
  std::optional<bench::DurationTimeline> timeline;
  if (duration) timeline.emplace(*config.duration, start_ns);
  Phase phase = duration ? timeline->At(start_ns) : Phase::kSample;
  uint64_t total_received = 0;
  uint64_t last_progress_ns = start_ns;
  std::array<ibv_wc, kPollBatch> wcs{};
  while (duration ? phase != Phase::kEnd : total_received < total) {
    const int polled = ibv_poll_cq(session.recv_cq(), kPollBatch, wcs.data());
    if (polled < 0) return IoError("ibv_poll_cq on the receive CQ failed");
    for (int i = 0; i < polled; ++i) {
      const ibv_wc& wc = wcs[static_cast<size_t>(i)];
      if (wc.status != IBV_WC_SUCCESS) return CompletionError(wc, "receive");
      if (!duration && total_received == 0) first[0] = bench::ReadCycles();
      ++total_received;
      if (refills[wc.wr_id].TakeOne()) {
        XFER_RETURN_IF_ERROR(posters[wc.wr_id].Post(session.qp(static_cast<uint32_t>(wc.wr_id))));
      }
    }
    const uint64_t now = NowNs();
    if (duration) phase = timeline->Record(now, static_cast<uint64_t>(polled));
    if (polled > 0) {
      last_progress_ns = now;
    } else if (now - last_progress_ns > TimeoutNs(config)) {
      return Timeout(fmt::format(
          "no message received for {} ms ({} of {} arrived); the sender stopped, runs other "
          "flags, or (UD/UC) messages were dropped",
          config.timeout.count(), total_received, total));
    }
  }
  if (duration) {
    if (timeline->sample_count() == 0) {
      return Timeout("no message arrived inside the duration window (-D)");
    }
    return bench::ComputeBandwidthDuration(config.size, timeline->sample_count(),
                                           timeline->sample_ns());
  }
  last[0] = bench::ReadCycles();
  calibration.End();
  TrafficConfig receive = config;
  receive.post_list = 1;
  return Finish(receive, total, false, first, last, calibration, 1);
}

}  // namespace xfer::perftest
