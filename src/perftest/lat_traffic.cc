#include "perftest/lat_traffic.h"

#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <optional>

#include "bench/model/cycle_clock.h"
#include "bench/model/duration_timeline.h"
#include "bench/model/receive_refill.h"
#include "common/clock.h"
#include "perftest/completion_error.h"
#include "perftest/work_requests.h"

namespace xfer::perftest {
namespace {

using Phase = bench::DurationTimeline::Phase;

// A ping-pong's bookkeeping: iteration or duration mode, stamps, the
// progress deadline. One per run.
class PingPongClock {
 public:
  explicit PingPongClock(const TrafficConfig& config)
      : config_(config), duration_(config.duration.has_value()) {
    if (duration_) {
      const uint64_t start_ns = NowNs();
      timeline_.emplace(*config.duration, start_ns);
      phase_ = timeline_->At(start_ns);
    } else {
      stamps_.posted_ns.reserve(config.iterations);
    }
    calibration_.Begin();
  }

  // Whether to post exchange number `sent`.
  bool ShouldSend(uint64_t sent) const {
    return duration_ ? phase_ != Phase::kEnd : sent < config_.iterations;
  }
  bool Done(uint64_t sent, uint64_t received) const {
    return duration_ ? phase_ == Phase::kEnd
                     : sent >= config_.iterations && received >= config_.iterations;
  }

  void StampPost() {
    if (!duration_) stamps_.posted_ns.push_back(bench::ReadCycles());
  }

  // Called once per completed exchange (a receive or a read completion);
  // duration mode counts it when it lands in the sample window.
  void CountExchange() {
    if (duration_) phase_ = timeline_->Record(NowNs());
  }

  // Duration mode: the run's time is up. perftest's alarm ends the run at
  // that moment even while a side waits for a message the other side,
  // already stopped, will never send; a wait must give up on this too.
  bool TimeIsUp() const { return duration_ && timeline_->At(NowNs()) == Phase::kEnd; }

  // Fails when `waited_since` lies further back than the timeout.
  Status CheckAlive(uint64_t waited_since, std::string_view what) const {
    if (NowNs() - waited_since <= static_cast<uint64_t>(config_.timeout.count()) * 1'000'000ull) {
      return Status::Ok();
    }
    return Timeout(fmt::format("no {} from the peer for {} ms; it stopped or died", what,
                               config_.timeout.count()));
  }

  void EndNow() { phase_ = Phase::kEnd; }

  Result<LatencyStamps> Finish() {
    calibration_.End();
    if (duration_) {
      if (timeline_->sample_count() == 0) {
        return Timeout("no exchange completed inside the duration window (-D)");
      }
      stamps_.window_count = timeline_->sample_count();
      stamps_.window_ns = timeline_->sample_ns();
    } else {
      calibration_.ToNs(stamps_.posted_ns);
      stamps_.ticks_per_ns = calibration_.TicksPerNs();
    }
    return std::move(stamps_);
  }

 private:
  const TrafficConfig& config_;
  bool duration_;
  std::optional<bench::DurationTimeline> timeline_;  // set: duration mode
  Phase phase_ = Phase::kWarmUp;  // at the last reading
  bench::CycleCalibration calibration_;
  LatencyStamps stamps_;
};

// Busy-polls `cq` for one completion. Returns false instead when a
// duration run's time is up first.
Result<bool> PollOne(ibv_cq* cq, const PingPongClock& clock, const char* side,
                     std::string_view what) {
  ibv_wc wc{};
  const uint64_t since = NowNs();
  for (uint32_t spins = 0;; ++spins) {
    const int polled = ibv_poll_cq(cq, 1, &wc);
    if (polled < 0) return IoError("ibv_poll_cq failed");
    if (polled == 1) {
      if (wc.status != IBV_WC_SUCCESS) return CompletionError(wc, side);
      return true;
    }
    if ((spins & 0xFFF) == 0) {
      if (clock.TimeIsUp()) return false;
      XFER_RETURN_IF_ERROR(clock.CheckAlive(since, what));
    }
  }
}

// PollOne where running out of duration ends the run.
#define XFER_POLL_OR_END(clock, expr)      \
  do {                                     \
    Result<bool> polled_ = (expr);         \
    if (!polled_.ok()) return polled_.status(); \
    if (!*polled_) {                       \
      (clock).EndNow();                    \
      return (clock).Finish();             \
    }                                      \
  } while (false)

}  // namespace

Result<LatencyStamps> RunWriteLatency(VerbsSession& session, const TrafficConfig& config) {
  SendChain chain(session, 0, bench::Verb::kWrite, config.size, 1);
  chain.Signal(0, 1, 0);  // every write_lat WR is signalled
  uint8_t* const send_slot = session.buffer().SendSlot(0);
  volatile uint8_t* const poll_byte = session.buffer().ReceiveSlot(0) + config.size - 1;
  // No clearing here: the peer may already be writing. The buffer starts
  // zeroed, and with -a each larger size polls a byte no smaller one wrote.
  const bool server = !session.is_client();

  PingPongClock clock(config);
  uint64_t sent = 0;
  uint64_t received = 0;
  while (!clock.Done(sent, received)) {
    // The server speaks first; everyone else answers what arrived.
    if (clock.ShouldSend(received) && !(sent == 0 && server)) {
      const auto expected = static_cast<uint8_t>(received + 1);
      const uint64_t since = NowNs();
      for (uint32_t spins = 0; *poll_byte != expected; ++spins) {
        if ((spins & 0xFFF) == 0) {
          if (clock.TimeIsUp()) return clock.Finish();
          XFER_RETURN_IF_ERROR(clock.CheckAlive(since, "write"));
        }
      }
      ++received;
      clock.CountExchange();
    }
    if (clock.ShouldSend(sent)) {
      clock.StampPost();
      send_slot[config.size - 1] = static_cast<uint8_t>(++sent);
      XFER_RETURN_IF_ERROR(chain.Post(session.qp(0)));
      XFER_POLL_OR_END(clock, PollOne(session.send_cq(), clock, "write", "write completion"));
    } else if (!clock.ShouldSend(received)) {
      break;  // duration over; the peer stops on its own clock
    }
  }
  return clock.Finish();
}

Result<LatencyStamps> RunSendLatency(VerbsSession& session, const TrafficConfig& config) {
  SendChain chain(session, 0, bench::Verb::kSend, config.size, 1);
  ReceivePoster receives(session, 0, config.size);
  const bool client = session.is_client();
  const bool duration = config.duration.has_value();
  const uint64_t last_wr = duration ? std::numeric_limits<uint64_t>::max() : config.iterations - 1;
  // PrePostReceives gave the QP rx_depth receives; replacements follow
  // ReceiveRefill's rule.
  bench::ReceiveRefill refill(duration ? bench::ReceiveRefill::kUnbounded : config.iterations,
                              session.rx_depth());

  PingPongClock clock(config);
  uint64_t sent = 0;
  uint64_t received = 0;
  while (!clock.Done(sent, received)) {
    // The client speaks first.
    if (clock.ShouldSend(received) && !(sent == 0 && client)) {
      XFER_POLL_OR_END(clock, PollOne(session.recv_cq(), clock, "receive", "message"));
      ++received;
      clock.CountExchange();
      if (refill.TakeOne()) XFER_RETURN_IF_ERROR(receives.Post(session.qp(0)));
    }
    if (!clock.ShouldSend(sent)) {
      if (!clock.ShouldSend(received)) break;
      continue;
    }
    chain.Signal(sent, config.cq_mod, last_wr);
    const bool signalled = sent % config.cq_mod == config.cq_mod - 1 || sent == last_wr;
    clock.StampPost();
    XFER_RETURN_IF_ERROR(chain.Post(session.qp(0)));
    ++sent;
    if (signalled) {
      XFER_POLL_OR_END(clock, PollOne(session.send_cq(), clock, "send", "send completion"));
    }
  }
  return clock.Finish();
}

Result<LatencyStamps> RunReadLatency(VerbsSession& session, const TrafficConfig& config) {
  SendChain chain(session, 0, config.verb, config.size, 1);
  PingPongClock clock(config);
  for (uint64_t sent = 0; clock.ShouldSend(sent); ++sent) {
    chain.Signal(0, 1, 0);
    clock.StampPost();
    XFER_RETURN_IF_ERROR(chain.Post(session.qp(0)));
    XFER_POLL_OR_END(clock, PollOne(session.send_cq(), clock, "read", "completion"));
    clock.CountExchange();
  }
  return clock.Finish();
}

}  // namespace xfer::perftest
