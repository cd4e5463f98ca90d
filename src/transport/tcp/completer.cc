#include "transport/tcp/completer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>

#include "common/clock.h"
#include "common/request_access.h"

namespace xfer::transport::tcp {
namespace {

using internal::RequestAccess;

// The error a peer's response status stands for, with a message naming the
// operation it refused (the wire carries only the code).
Status PeerRefusal(const FrameHeader& header, const InflightOp& op) {
  const char* what = op.type == FrameType::kWrite ? "WRITE to" : "READ from";
  return Status(header.status, fmt::format("peer refused {} [{:#x}, +{}): {}", what, op.remote,
                                           op.length, StatusCodeName(header.status)));
}

}  // namespace

Completer::Completer(Connection& connection)
    : connection_(connection), staging_(connection.devices()) {
  readers_.reserve(connection_.outgoing().size());
  for (auto& out : connection_.outgoing()) {
    fds_.push_back({out->socket.fd(), POLLIN, 0});
    readers_.emplace_back(out->socket);
  }
}

Completer::~Completer() { Join(); }

void Completer::Start() {
  thread_ = std::thread([this] { Run(); });
}

void Completer::Join() {
  if (thread_.joinable()) thread_.join();
}

void Completer::Run() {
  // Wake often enough to notice a silent peer well within io_timeout.
  auto interval = std::clamp<int64_t>(connection_.io_timeout().count() / 4, 5, 250);
  const uint64_t interval_ns = static_cast<uint64_t>(interval) * 1'000'000;
  uint64_t next_check_ns = NowNs() + interval_ns;
  while (!connection_.closed()) {
    int ready = poll(fds_.data(), fds_.size(), static_cast<int>(interval));
    if (ready < 0 && errno != EINTR) {
      connection_.Fail(IoError(ErrnoMessage("tcp completer: poll", errno)));
      break;
    }
    for (size_t i = 0; ready > 0 && i < fds_.size() && !connection_.closed(); ++i) {
      if (fds_[i].revents != 0) Service(i);
    }
    // Not after every response: it locks every FIFO.
    uint64_t now = NowNs();
    if (now >= next_check_ns) {
      CheckTimeouts(now);
      next_check_ns = now + interval_ns;
    }
  }
  DrainAll();
}

Status Completer::Match(const FrameHeader& header, const InflightOp& op) const {
  FrameType expected = op.type == FrameType::kWrite ? FrameType::kWriteAck : FrameType::kReadData;
  if (header.type != expected) {
    return ProtocolError(fmt::format("tcp: got {} where {} was due", FrameTypeName(header.type),
                                     FrameTypeName(expected)));
  }
  if (header.request_id != op.id) {
    return ProtocolError(
        fmt::format("tcp: response for request {} where {} was due", header.request_id, op.id));
  }
  if (header.status == StatusCode::kOk && header.length != op.length) {
    return ProtocolError(fmt::format("tcp: {} reports {} bytes for a {}-byte request",
                                     FrameTypeName(header.type), header.length, op.length));
  }
  return Status::Ok();
}

void Completer::Service(size_t index) {
  OutgoingStream& out = *connection_.outgoing()[index];
  FrameReader& reader = readers_[index];
  auto filled = reader.Fill();
  // Responses that arrived before an EOF still count: consume them first.
  while (!connection_.closed()) {
    auto header = reader.Next();
    if (!header.ok()) {
      connection_.Fail(header.status());
      return;
    }
    if (!header->has_value()) break;
    Status broken = HandleResponse(out, reader, **header);
    if (!broken.ok()) {
      connection_.Fail(broken);
      return;
    }
  }
  if (!filled.ok()) connection_.Fail(filled.status().WithContext("tcp: reading responses"));
}

Status Completer::HandleResponse(OutgoingStream& out, FrameReader& reader,
                                 const FrameHeader& header) {
  InflightOp op;
  {
    std::lock_guard lock(out.fifo_mu);
    if (out.fifo.empty()) {
      return ProtocolError(fmt::format("tcp: unsolicited {} frame", FrameTypeName(header.type)));
    }
    // Popped now, so this thread alone finishes it, whatever happens next.
    op = out.fifo.PopFront();
  }
  // A refusal fails only this part; a stream that no longer parses, or that
  // breaks inside a payload, fails the whole connection.
  Status broken = Match(header, op);
  Status result = broken;
  if (broken.ok() && header.status != StatusCode::kOk) {
    result = PeerRefusal(header, op);
  } else if (broken.ok() && header.type == FrameType::kReadData) {
    // Into the registered destination; only what arrived with the header
    // passes through the reader's buffer.
    const auto timeout = connection_.io_timeout();
    broken = op.local_device >= 0
                 ? staging_.Receive(op.local_device, op.local, op.length,
                                    [&](void* host, uint64_t bytes) {
                                      return reader.ReadPayload(host, bytes, timeout);
                                    })
                 : reader.ReadPayload(op.local, op.length, timeout);
    if (!broken.ok()) broken = broken.WithContext("tcp: reading READ_DATA");
    result = broken;
  }
  last_response_ns_ = NowNs();
  // A broken stream closes the connection before the request reports it,
  // so a caller that sees the failure also finds the connection closed.
  if (!broken.ok()) connection_.Fail(broken);
  RequestAccess::FinishPart(*op.request, result, result.ok() ? op.length : 0);
  return broken;
}

void Completer::CheckTimeouts(uint64_t now) {
  auto limit = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(connection_.io_timeout()).count());
  for (auto& out : connection_.outgoing()) {
    std::lock_guard lock(out->fifo_mu);
    if (out->fifo.empty()) continue;
    uint64_t last =
        std::max(out->last_progress_ns.load(std::memory_order_relaxed), last_response_ns_);
    if (now > last && now - last > limit) {
      connection_.Fail(Timeout(fmt::format("tcp: no response from the peer for {} ms",
                                           connection_.io_timeout().count())));
      return;
    }
  }
}

void Completer::DrainAll() {
  Status reason = connection_.reason();
  for (auto& out : connection_.outgoing()) {
    // Taking send_mu is safe now: the sockets are shut down, so a poster
    // inside a send returns at once. Holding it guarantees no poster pushes
    // after the drain (posters check closed() under it).
    std::lock_guard send_lock(out->send_mu);
    std::lock_guard fifo_lock(out->fifo_mu);
    while (!out->fifo.empty()) {
      RequestAccess::FinishPart(*out->fifo.PopFront().request, reason, 0);
    }
  }
}

}  // namespace xfer::transport::tcp
