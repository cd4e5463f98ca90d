#include "bench/latency_runner.h"

#include <atomic>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "bench/model/cycle_clock.h"
#include "bench/model/duration_timeline.h"
#include "common/clock.h"

namespace xfer::bench {
namespace {

constexpr uint32_t kReceiveSlot = 0;
constexpr uint32_t kSendSlot = 1;
constexpr uint64_t kSpinsPerCheck = 4096;

uint64_t ToNs(std::chrono::milliseconds ms) { return static_cast<uint64_t>(ms.count()) * 1'000'000; }

bool DurationMode(const LatencyConfig& config) { return config.duration.has_value(); }

// Counts messages in iteration mode, or watches the clock in duration mode.
// Duration mode reads the clock once per exchange, in Exchanged(); the
// decision to send the next message uses that reading.
class LatencyPacer {
 public:
  explicit LatencyPacer(const LatencyConfig& config) : config_(config) {
    if (DurationMode(config)) {
      const uint64_t start_ns = NowNs();
      timeline_.emplace(*config.duration, start_ns);
      phase_ = timeline_->At(start_ns);
    } else {
      samples_.stamps.resize(config.iterations);
      calibration_.Begin();
    }
  }
  // Before sending message `scnt` (0-based): whether to send it, stamping
  // it in iteration mode. In duration mode the client sends until its
  // timeline ends; the server answers whatever comes (the client decides
  // the end).
  bool BeforeSend(uint64_t scnt) {
    if (timeline_) return config_.is_server || phase_ != DurationTimeline::Phase::kEnd;
    if (scnt >= config_.iterations) return false;
    samples_.stamps[scnt] = ReadCycles();
    return true;
  }
  // One exchange finished: the peer's answer arrived, or a read completed.
  void Exchanged() {
    if (timeline_) phase_ = timeline_->Record(NowNs());
  }
  // Whether to wait for answer `rcnt` (1-based) at all.
  bool ExpectAnswer(uint64_t rcnt) const { return timeline_ || rcnt <= config_.iterations; }
  bool Done(uint64_t scnt, uint64_t rcnt) const {
    return !timeline_ && scnt >= config_.iterations && rcnt >= config_.iterations;
  }
  LatencySamples Finish() {
    if (timeline_) {
      samples_.window_count = timeline_->sample_count();
      samples_.window_ns = timeline_->sample_ns();
    } else {
      calibration_.End();
      calibration_.ToNs(samples_.stamps);
      samples_.ticks_per_ns = calibration_.TicksPerNs();
    }
    return std::move(samples_);
  }

 private:
  const LatencyConfig& config_;
  std::optional<DurationTimeline> timeline_;
  DurationTimeline::Phase phase_ = DurationTimeline::Phase::kWarmUp;  // at the last reading
  CycleCalibration calibration_;  // iteration mode: stamps are cycles until Finish
  LatencySamples samples_;
};

// Waits for a request this loop owns; on timeout disconnects so the request
// can be destroyed safely.
Status WaitOrCancel(Session& session, TransferRequest& request, std::chrono::milliseconds timeout) {
  Status status = request.Wait(timeout);
  if (status.code() == StatusCode::kTimeout) {
    (void)session.engine->Disconnect(session.peer);
    (void)request.Wait(timeout);
  }
  return status;
}

// Paces config.watch_peer to once per kWatchPeriodNs while a side waits.
class PeerWatch {
 public:
  explicit PeerWatch(const LatencyConfig& config) : config_(config), next_ns_(NowNs()) {}
  // Whether the peer has finished; the error that ends the wait.
  Result<bool> Check(uint64_t now_ns) {
    if (!config_.watch_peer || now_ns < next_ns_) return false;
    next_ns_ = now_ns + kWatchPeriodNs;
    return config_.watch_peer();
  }

 private:
  static constexpr uint64_t kWatchPeriodNs = 1'000'000;
  const LatencyConfig& config_;
  uint64_t next_ns_;
};

// Polls `arrived` (true once the peer's message #`seq` is here; an error
// ends the wait) without sleeping, looking every `spins_per_check` polls
// at the clock and at config.watch_peer: sets `stopped` instead when it
// says the peer has finished, fails at once when it says the peer is gone,
// and gives up after config.timeout naming `what`.
template <typename Arrived>
Status SpinUntil(const LatencyConfig& config, uint64_t spins_per_check, const char* what,
                 uint64_t seq, bool& stopped, Arrived&& arrived) {
  uint64_t spins = 0;
  const uint64_t give_up = NowNs() + ToNs(config.timeout);
  PeerWatch watch(config);
  for (;;) {
    auto here = arrived();
    if (!here.ok()) return here.status();
    if (*here) return Status::Ok();
    if ((++spins % spins_per_check) != 0) continue;
    const uint64_t now = NowNs();
    XFER_RETURN_IF_ERROR(CheckInterruptedAt(*config.stop, config.size));
    auto finished = watch.Check(now);
    if (!finished.ok()) return finished.status();
    if (*finished) {
      stopped = true;
      return Status::Ok();
    }
    if (now > give_up) {
      return Timeout(fmt::format("peer's {} #{} did not arrive within {} ms", what, seq,
                                 config.timeout.count()));
    }
  }
}

// Spins until the peer's WRITE has landed sequence number `expected` in the
// last byte of the receive slot.
// The byte is read as an acquire atomic: the peer's WRITE lands the payload
// before its last byte, and nothing of the payload is read before the byte
// is seen (an acquire load, not a fence: ThreadSanitizer models loads, not
// fences).
Status AwaitByte(uint8_t* byte, uint8_t expected, const LatencyConfig& config,
                 uint64_t seq, bool& stopped) {
  const std::atomic_ref<uint8_t> landed(*byte);
  return SpinUntil(config, kSpinsPerCheck, "write", seq, stopped, [&]() -> Result<bool> {
    return landed.load(std::memory_order_acquire) == expected;
  });
}

// write_lat --notify: waits for the peer's notification of WRITE `seq`
// (its text is the sequence number), polling the engine's inbox, which
// takes a lock: the clock is looked at more often than AwaitByte does.
Status AwaitNotification(Session& session, const LatencyConfig& config, uint64_t seq,
                         bool& stopped) {
  return SpinUntil(config, 64, "notification", seq, stopped, [&]() -> Result<bool> {
    auto got = session.engine->GetNotifications(std::chrono::nanoseconds(0), session.peer);
    if (got.empty()) return false;
    if (got.size() != 1 || got.front().message != std::to_string(seq)) {
      return ProtocolError(fmt::format("expected the peer's notification #{}, got {} ('{}')",
                                       seq, got.size(), got.front().message));
    }
    return true;
  });
}

// Posts one entry, through Submit or (config.prepared) a prepared list
// made once; a notification rides along when given.
class OneEntryPost {
 public:
  OneEntryPost(Session& session, OpCode op, const TransferEntry& entry)
      : session_(session), op_(op), entry_(entry) {}
  Status Prepare(bool prepared) {
    if (!prepared) return Status::Ok();
    auto list = session_.engine->PrepareTransfers(session_.peer, std::span(&entry_, 1));
    if (!list.ok()) return list.status().WithContext("--prepared");
    list_ = std::move(*list);
    return Status::Ok();
  }
  Status Post(TransferRequest& request, std::string_view notification = {}) {
    SubmitOptions options;
    options.notification = notification;
    if (list_.valid()) return session_.engine->SubmitPrepared(list_, op_, 0, 1, request, options);
    if (notification.empty()) {
      return session_.engine->Submit(session_.peer, op_, std::span(&entry_, 1), request);
    }
    return session_.engine->Submit(session_.peer, op_, std::span(&entry_, 1), request, options);
  }

 private:
  Session& session_;
  const OpCode op_;
  const TransferEntry entry_;
  PreparedTransfers list_;
};

}  // namespace

void ResetReceiveSlot(Session& session, const BufferLayout& layout, uint64_t size) {
  std::memset(session.local_slot(layout, kReceiveSlot), 0, size);
}

Result<LatencySamples> RunWriteLatency(Session& session, const BufferLayout& layout,
                                       const LatencyConfig& config) {
  LatencyPacer pacer(config);
  uint8_t* source = session.local_slot(layout, kSendSlot);
  uint8_t* poll = session.local_slot(layout, kReceiveSlot) + config.size - 1;
  OneEntryPost poster(session, OpCode::kWrite,
                      {source, session.remote_slot(layout, kReceiveSlot), config.size});
  XFER_RETURN_IF_ERROR(poster.Prepare(config.prepared));
  TransferRequest request;
  for (uint64_t scnt = 0, rcnt = 0; !pacer.Done(scnt, rcnt);) {
    XFER_RETURN_IF_ERROR(CheckInterruptedAt(*config.stop, config.size));
    if (pacer.ExpectAnswer(rcnt + 1) && !(scnt < 1 && config.is_server)) {
      bool stopped = false;
      ++rcnt;
      XFER_RETURN_IF_ERROR(
          config.notify ? AwaitNotification(session, config, rcnt, stopped)
                        : AwaitByte(poll, static_cast<uint8_t>(rcnt), config, rcnt, stopped));
      if (stopped) break;
      pacer.Exchanged();
    }
    if (!pacer.BeforeSend(scnt)) {
      if (DurationMode(config)) break;
      continue;
    }
    source[config.size - 1] = static_cast<uint8_t>(++scnt);
    const std::string note = config.notify ? std::to_string(scnt) : std::string();
    XFER_RETURN_IF_ERROR(poster.Post(request, note));
    XFER_RETURN_IF_ERROR(WaitOrCancel(session, request, config.timeout));
  }
  return pacer.Finish();
}

Result<LatencySamples> RunReadLatency(Session& session, const BufferLayout& layout,
                                      const LatencyConfig& config) {
  LatencyPacer pacer(config);
  OneEntryPost poster(session, OpCode::kRead,
                      {session.local_slot(layout, kReceiveSlot),
                       session.remote_slot(layout, kSendSlot), config.size});
  XFER_RETURN_IF_ERROR(poster.Prepare(config.prepared));
  TransferRequest request;
  for (uint64_t i = 0; pacer.BeforeSend(i); ++i) {
    XFER_RETURN_IF_ERROR(CheckInterruptedAt(*config.stop, config.size));
    XFER_RETURN_IF_ERROR(poster.Post(request));
    XFER_RETURN_IF_ERROR(WaitOrCancel(session, request, config.timeout));
    pacer.Exchanged();
  }
  return pacer.Finish();
}

SendLatency::~SendLatency() {
  if (!receive_.done() || !send_.done()) {
    (void)session_.engine->Disconnect(session_.peer);
    (void)receive_.Wait(config_.timeout);
    (void)send_.Wait(config_.timeout);
  }
}

Status SendLatency::PostReceive() {
  return session_.engine->PostRecv(session_.peer, session_.local_slot(layout_, kReceiveSlot),
                                   config_.size, receive_);
}

Status SendLatency::PrePost() { return refill_.TakeOne() ? PostReceive() : Status::Ok(); }

// Waits for the posted receive; in duration mode on the server, gives up
// quietly (stopped = true) once the client has finished.
Status SendLatency::AwaitReceive(bool& stopped) {
  const uint64_t give_up = NowNs() + ToNs(config_.timeout);
  PeerWatch watch(config_);
  while (!receive_.done()) {
    (void)receive_.Wait(std::chrono::milliseconds(1));
    if (receive_.done()) break;
    const uint64_t now = NowNs();
    XFER_RETURN_IF_ERROR(CheckInterruptedAt(*config_.stop, config_.size));
    auto finished = watch.Check(now);
    if (!finished.ok()) return finished.status();
    if (*finished) {
      stopped = true;
      return Status::Ok();
    }
    if (now > give_up) {
      return Timeout(fmt::format("no message from the peer within {} ms", config_.timeout.count()));
    }
  }
  XFER_RETURN_IF_ERROR(receive_.Test());
  if (receive_.bytes() != config_.size) {
    return ProtocolError(fmt::format("received {} bytes, expected {}", receive_.bytes(), config_.size));
  }
  return Status::Ok();
}

Result<LatencySamples> SendLatency::Run() {
  LatencyPacer pacer(config_);
  const uint8_t* source = session_.local_slot(layout_, kSendSlot);
  bool consumed = false;  // the posted receive was used and must be re-posted
  for (uint64_t scnt = 0, rcnt = 0; !pacer.Done(scnt, rcnt);) {
    XFER_RETURN_IF_ERROR(CheckInterruptedAt(*config_.stop, config_.size));
    if (pacer.ExpectAnswer(rcnt + 1) && !(scnt < 1 && !config_.is_server)) {
      bool stopped = false;
      ++rcnt;
      XFER_RETURN_IF_ERROR(AwaitReceive(stopped));
      if (stopped) break;
      pacer.Exchanged();
      consumed = true;
    }
    if (!pacer.BeforeSend(scnt)) {
      if (DurationMode(config_)) break;  // the client ends with nothing in flight
      continue;
    }
    // Re-post before answering, so the peer's next message finds a receive.
    if (consumed && refill_.TakeOne()) XFER_RETURN_IF_ERROR(PostReceive());
    consumed = false;
    ++scnt;
    XFER_RETURN_IF_ERROR(session_.engine->PostSend(session_.peer, source, config_.size, send_));
    XFER_RETURN_IF_ERROR(send_.Wait(config_.timeout));
  }
  return pacer.Finish();
}

}  // namespace xfer::bench
