#include "bench/control_link.h"

#include <poll.h>
#include <sys/socket.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace xfer::bench {
namespace {

constexpr size_t kMaxAbortReason = 1024;
constexpr auto kAbortTimeout = std::chrono::milliseconds(500);

}  // namespace

std::string ControlLink::TypeName(uint8_t type) const {
  if (type == protocol_.heartbeat) return "Heartbeat";
  if (type == protocol_.done) return "Done";
  if (type == protocol_.abort) return "Abort";
  const char* name = protocol_.type_name != nullptr ? protocol_.type_name(type) : nullptr;
  if (name != nullptr && *name != '\0') return name;
  return fmt::format("unknown message type {}", type);
}

WireWriter ControlLink::Begin(uint8_t type) const {
  WireWriter w;
  w.U32(protocol_.magic);
  w.U8(type);
  return w;
}

Status ControlLink::SendWithin(const std::vector<uint8_t>& message,
                               std::chrono::milliseconds timeout) {
  std::lock_guard lock(send_mu_);
  Status status = socket_.SendMessage(message, Deadline::After(timeout));
  return status.ok() ? status : status.WithContext(fmt::format("{} connection", protocol_.channel));
}

Status ControlLink::Send(const std::vector<uint8_t>& message) { return SendWithin(message, timeout_); }

Result<ControlMessage> ControlLink::RecvAny() {
  for (;;) {  // each heartbeat restarts the timeout
    auto bytes = socket_.RecvMessage(protocol_.max_message, Deadline::After(timeout_));
    if (!bytes.ok()) {
      return bytes.status().WithContext(fmt::format("{} connection", protocol_.channel));
    }
    WireReader r(*bytes);
    uint32_t magic = 0;
    ControlMessage message;
    if (!r.U32(magic).ok() || magic != protocol_.magic || !r.U8(message.type).ok()) {
      return ProtocolError(
          fmt::format("{}: the peer is not an xfer of this kind (bad magic)", protocol_.channel));
    }
    if (message.type == protocol_.heartbeat) continue;
    if (message.type == protocol_.abort) {
      std::string reason;
      if (!r.String(reason, kMaxAbortReason).ok() || reason.empty()) reason = "(no reason given)";
      return ConnectionLost("the peer failed: " + reason);
    }
    if (message.type != protocol_.done && TypeName(message.type).starts_with("unknown")) {
      return ProtocolError(fmt::format("{}: {}", protocol_.channel, TypeName(message.type)));
    }
    message.bytes = std::move(*bytes);
    return message;
  }
}

Result<ControlMessage> ControlLink::Recv(uint8_t expected_type) {
  auto message = RecvAny();
  if (!message.ok()) return message.status();
  if (message->type != expected_type) {
    return ProtocolError(fmt::format("{}: expected {}, got {}", protocol_.channel,
                                     TypeName(expected_type), TypeName(message->type)));
  }
  return message;
}

Status ControlLink::SendHeartbeat() { return Send(Begin(protocol_.heartbeat).bytes()); }

Status ControlLink::SendDone() { return Send(Begin(protocol_.done).bytes()); }

Status ControlLink::RecvDone() {
  auto message = Recv(protocol_.done);
  if (!message.ok()) return message.status();
  if (!message->body().empty()) return ProtocolError(fmt::format("{}: malformed Done", protocol_.channel));
  return Status::Ok();
}

void ControlLink::SendAbort(const std::string& reason) {
  WireWriter w = Begin(protocol_.abort);
  w.String(std::string_view(reason).substr(0, kMaxAbortReason));
  (void)SendWithin(w.bytes(), kAbortTimeout);
}

bool ControlLink::Readable() {
  pollfd pfd{socket_.fd(), POLLIN, 0};
  return ::poll(&pfd, 1, 0) > 0;
}

Result<bool> ControlLink::WatchPeer() {
  if (!Readable()) return false;
  // The frame's length (4), the magic (4) and the type: enough to tell an
  // Abort without consuming anything else.
  uint8_t head[4 + ControlMessage::kHeaderBytes];
  const ssize_t n = ::recv(socket_.fd(), head, sizeof(head), MSG_PEEK | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return false;
  if (n <= 0) {
    return ConnectionLost(fmt::format(
        "the peer closed the {} connection ({}); it failed or was stopped", protocol_.channel,
        n == 0 ? "end of stream" : std::strerror(errno)));
  }
  if (static_cast<size_t>(n) < sizeof(head)) return true;  // the rest is on its way
  if (head[sizeof(head) - 1] != protocol_.abort) return true;
  auto message = RecvAny();  // an Abort comes back as its reason, a failed read as itself
  return message.ok() ? ProtocolError(fmt::format("{}: Abort without a reason", protocol_.channel))
                      : message.status();
}

}  // namespace xfer::bench
