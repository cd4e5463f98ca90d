#include "transport/verbs/receive_path.h"

#include <fmt/format.h>

#include <cstring>
#include <utility>

#include "common/clock.h"
#include "common/request_access.h"

namespace xfer::transport::verbs {
namespace {

using internal::RequestAccess;

}  // namespace

ReceivePath::ReceivePath(ReceiveSlots& slots, std::vector<ibv_qp*> qps,
                         const ConnectionState& state, NotificationSink& notifications,
                         std::chrono::milliseconds io_timeout, FailFn fail)
    : slots_(slots),
      qps_(std::move(qps)),
      state_(state),
      notifications_(notifications),
      io_timeout_(io_timeout),
      fail_(std::move(fail)),
      streams_(qps_.size()) {
  for (Stream& stream : streams_) stream.note.resize(kMaxNotificationBytes);
}

Status ReceivePath::Post(void* buffer, size_t capacity, TransferRequest& request) {
  std::lock_guard lock(mu_);
  if (closed_ || state_.closed()) return state_.ClosedError();
  // Armed under the lock: a waiting message may fill it right here.
  RequestAccess::Start(request, 1);
  posted_.Push({&request, static_cast<uint8_t*>(buffer), capacity});
  const uint64_t now = NowNs();
  while (!stalled_.empty() && !posted_.empty()) {
    const uint32_t q = stalled_.PopFront();
    streams_[q].stalled = false;
    Status status = ProcessLocked(q, now);
    if (!status.ok()) {
      fail_(status);
      break;
    }
  }
  return Status::Ok();
}

void ReceivePath::OnArrival(uint32_t qp, uint32_t slot, uint32_t length, bool has_imm,
                            uint32_t imm) {
  std::lock_guard lock(mu_);
  if (closed_ || state_.closed()) return;
  Status status = CheckPiece(qp, length, has_imm, imm);
  if (status.ok()) {
    streams_[qp].pending.Push({slot, length, imm & ~kNotificationImm, (imm & kNotificationImm) != 0});
    status = ProcessLocked(qp, NowNs());
  }
  if (!status.ok()) fail_(status);
}

Status ReceivePath::CheckPiece(uint32_t qp, uint32_t length, bool has_imm, uint32_t imm) {
  if (!has_imm) {
    return ProtocolError(fmt::format("verbs: a SEND without immediate data on stream {}", qp));
  }
  const bool notification = (imm & kNotificationImm) != 0;
  const uint64_t total = imm & ~kNotificationImm;
  const uint64_t limit = notification ? kMaxNotificationBytes : kMaxMessageBytes;
  if (length == 0 || total == 0 || length > total || total > limit) {
    return ProtocolError(fmt::format(
        "verbs: a {}-byte piece of a {}-byte {} on stream {} (they are 1..{} bytes)", length,
        total, notification ? "notification" : "message", qp, limit));
  }
  return Status::Ok();
}

void ReceivePath::StartMessageLocked(Stream& stream, const Piece& piece) {
  stream.active = true;
  stream.total = piece.total;
  stream.received = 0;
  stream.target = posted_.PopFront();
  if (piece.total > stream.target.capacity) {
    RequestAccess::Complete(
        *stream.target.request,
        InvalidArgument(
            fmt::format("verbs: a {}-byte message does not fit the posted {}-byte receive; dropped",
                        piece.total, stream.target.capacity)),
        0);
    stream.target.request = nullptr;  // the rest of it is dropped
  }
}

Status ReceivePath::ProcessLocked(uint32_t q, uint64_t now_ns) {
  Stream& stream = streams_[q];
  while (!stream.pending.empty()) {
    const Piece piece = stream.pending.front();
    if (!stream.active && piece.notification) {
      // Needs no receive: copied into the stream's own buffer.
      stream.active = true;
      stream.notification = true;
      stream.total = piece.total;
      stream.received = 0;
    } else if (!stream.active) {
      if (posted_.empty()) {
        // No receive yet: the pieces wait in their slots.
        if (!stream.stalled) {
          stream.stalled = true;
          stalled_.Push(q);
          stream.since_ns = now_ns;
        }
        return Status::Ok();
      }
      StartMessageLocked(stream, piece);
    } else if (piece.notification != stream.notification || piece.total != stream.total ||
               piece.length > stream.total - stream.received) {
      return ProtocolError(fmt::format(
          "verbs: stream {} sent a {}-byte piece of a {}-byte message where {} bytes of a "
          "{}-byte message were due",
          q, piece.length, piece.total, stream.total - stream.received, stream.total));
    }
    if (stream.notification) {
      std::memcpy(stream.note.data() + stream.received, slots_.Data(q, piece.slot),
                  piece.length);
    } else if (stream.target.request != nullptr) {
      std::memcpy(stream.target.buffer + stream.received, slots_.Data(q, piece.slot),
                  piece.length);
    }
    stream.received += piece.length;
    stream.pending.PopFront();
    XFER_RETURN_IF_ERROR(slots_.Post(qps_[q], q, piece.slot));
    stream.since_ns = now_ns;
    if (stream.received == stream.total && stream.notification) {
      stream.active = false;
      stream.notification = false;
      stream.since_ns = 0;
      XFER_RETURN_IF_ERROR(
          notifications_
              .Deliver(std::span<const uint8_t>(stream.note.data(), stream.total))
              .WithContext("verbs: a notification from the peer"));
    } else if (stream.received == stream.total) {
      if (stream.target.request != nullptr) {
        RequestAccess::Complete(*stream.target.request, Status::Ok(), stream.total);
      }
      stream.active = false;
      stream.target = {};
      stream.since_ns = 0;
    }
  }
  return Status::Ok();
}

void ReceivePath::CheckTimeouts(uint64_t now_ns) {
  const auto limit = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(io_timeout_).count());
  Status timeout;
  {
    std::lock_guard lock(mu_);
    if (closed_) return;
    for (size_t q = 0; q < streams_.size() && timeout.ok(); ++q) {
      const Stream& stream = streams_[q];
      if (stream.since_ns == 0 || now_ns < stream.since_ns || now_ns - stream.since_ns <= limit) {
        continue;
      }
      if (stream.active) {
        timeout = Timeout(fmt::format(
            "verbs: the peer stopped sending a {}-byte message on stream {} after {} bytes, "
            "for {} ms",
            stream.total, q, stream.received, io_timeout_.count()));
      } else if (!stream.pending.empty()) {
        timeout = Timeout(fmt::format(
            "verbs: peer sent a {}-byte message on stream {} and no receive was posted within "
            "{} ms",
            stream.pending.front().total, q, io_timeout_.count()));
      }
    }
  }
  if (!timeout.ok()) fail_(timeout);
}

void ReceivePath::FailAll(const Status& reason) {
  std::lock_guard lock(mu_);
  closed_ = true;
  for (auto& stream : streams_) {
    if (stream.active && stream.target.request != nullptr) {
      RequestAccess::Complete(*stream.target.request, reason, 0);
    }
    stream.active = false;
    stream.target = {};
  }
  while (!posted_.empty()) RequestAccess::Complete(*posted_.PopFront().request, reason, 0);
}

}  // namespace xfer::transport::verbs
