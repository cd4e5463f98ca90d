#include "bench/latency_runner.h"

#include <atomic>
#include <cstring>

#include <fmt/format.h>

#include "common/clock.h"

namespace xfer::bench {
namespace {

constexpr uint32_t kReceiveSlot = 0;
constexpr uint32_t kSendSlot = 1;

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

// Spins until the peer's WRITE has landed sequence number `expected` in the
// last byte of the receive slot.
Status AwaitByte(const volatile uint8_t* byte, uint8_t expected, std::chrono::milliseconds timeout,
                 uint64_t seq) {
  uint64_t spins = 0;
  const uint64_t give_up = NowNs() + static_cast<uint64_t>(timeout.count()) * 1'000'000;
  while (*byte != expected) {
    if ((++spins & 4095) == 0 && NowNs() > give_up) {
      return Timeout(fmt::format("peer's write #{} did not arrive within {} ms", seq,
                                 timeout.count()));
    }
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  return Status::Ok();
}

}  // namespace

void ResetReceiveSlot(Session& session, const BufferLayout& layout, uint64_t size) {
  std::memset(session.local_slot(layout, kReceiveSlot), 0, size);
}

Result<std::vector<uint64_t>> RunWriteLatency(Session& session, const BufferLayout& layout,
                                              const LatencyConfig& config) {
  std::vector<uint64_t> stamps(config.iterations);
  uint8_t* source = session.local_slot(layout, kSendSlot);
  const volatile uint8_t* poll = session.local_slot(layout, kReceiveSlot) + config.size - 1;
  const TransferEntry entry{source, session.remote_slot(layout, kReceiveSlot), config.size};
  TransferRequest request;
  for (uint64_t scnt = 0, rcnt = 0; scnt < config.iterations || rcnt < config.iterations;) {
    if (rcnt < config.iterations && !(scnt < 1 && config.is_server)) {
      ++rcnt;
      XFER_RETURN_IF_ERROR(AwaitByte(poll, static_cast<uint8_t>(rcnt), config.timeout, rcnt));
    }
    if (scnt < config.iterations) {
      source[config.size - 1] = static_cast<uint8_t>(++scnt);
      stamps[scnt - 1] = NowNs();
      XFER_RETURN_IF_ERROR(session.engine->Submit(session.peer, OpCode::kWrite,
                                                  std::span(&entry, 1), request));
      XFER_RETURN_IF_ERROR(WaitOrCancel(session, request, config.timeout));
    }
  }
  return stamps;
}

Result<std::vector<uint64_t>> RunReadLatency(Session& session, const BufferLayout& layout,
                                             const LatencyConfig& config) {
  std::vector<uint64_t> stamps(config.iterations);
  const TransferEntry entry{session.local_slot(layout, kReceiveSlot),
                            session.remote_slot(layout, kSendSlot), config.size};
  TransferRequest request;
  for (uint64_t i = 0; i < config.iterations; ++i) {
    stamps[i] = NowNs();
    XFER_RETURN_IF_ERROR(
        session.engine->Submit(session.peer, OpCode::kRead, std::span(&entry, 1), request));
    XFER_RETURN_IF_ERROR(WaitOrCancel(session, request, config.timeout));
  }
  return stamps;
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

Status SendLatency::PrePost() { return PostReceive(); }

Result<std::vector<uint64_t>> SendLatency::Run() {
  std::vector<uint64_t> stamps(config_.iterations);
  const uint8_t* source = session_.local_slot(layout_, kSendSlot);
  for (uint64_t scnt = 0, rcnt = 0; scnt < config_.iterations || rcnt < config_.iterations;) {
    if (rcnt < config_.iterations && !(scnt < 1 && !config_.is_server)) {
      ++rcnt;
      XFER_RETURN_IF_ERROR(receive_.Wait(config_.timeout));
      if (receive_.bytes() != config_.size) {
        return ProtocolError(fmt::format("received {} bytes, expected {}", receive_.bytes(),
                                         config_.size));
      }
      // Re-post before answering, so the peer's next message finds it.
      if (rcnt < config_.iterations) XFER_RETURN_IF_ERROR(PostReceive());
    }
    if (scnt < config_.iterations) {
      stamps[scnt++] = NowNs();
      XFER_RETURN_IF_ERROR(session_.engine->PostSend(session_.peer, source, config_.size, send_));
      XFER_RETURN_IF_ERROR(send_.Wait(config_.timeout));
    }
  }
  return stamps;
}

}  // namespace xfer::bench
