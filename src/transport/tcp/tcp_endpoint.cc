#include "transport/tcp/tcp_endpoint.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "common/clock.h"
#include "common/request_access.h"
#include "transport/notification_length.h"
#include "transport/tcp/payload_io.h"

namespace xfer::transport::tcp {
namespace {

using internal::RequestAccess;

// Frames needed for `entries`, or 0 when there are more than 2^32-1.
uint32_t CountFrames(std::span<const TransferEntry> entries) {
  uint64_t frames = 0;
  for (const auto& entry : entries) {
    frames += entry.length == 0 ? 1 : (entry.length + kMaxFramePayload - 1) / kMaxFramePayload;
  }
  return frames > std::numeric_limits<uint32_t>::max() ? 0 : static_cast<uint32_t>(frames);
}

}  // namespace

TcpEndpoint::TcpEndpoint(StreamSockets sockets, const EndpointSetup& setup)
    : connection_(std::move(sockets), setup.local, *setup.devices, *setup.notifications,
                  setup.io_timeout),
      completer_(connection_),
      responder_(connection_) {
  completer_.Start();
  responder_.Start();
}

TcpEndpoint::~TcpEndpoint() { Close(); }

OutgoingStream& TcpEndpoint::Pick(uint32_t stream) {
  auto& outgoing = connection_.outgoing();
  return *outgoing[stream % outgoing.size()];
}

Status TcpEndpoint::PostWrite(std::span<const TransferEntry> entries, TransferRequest& request,
                              uint32_t stream) {
  return PostOneSided(FrameType::kWrite, entries, request, stream);
}

Status TcpEndpoint::PostRead(std::span<const TransferEntry> entries, TransferRequest& request,
                             uint32_t stream) {
  return PostOneSided(FrameType::kRead, entries, request, stream);
}

Status TcpEndpoint::PushAndSend(OutgoingStream& out, InflightOp op) {
  op.id = out.next_id++;
  {
    // Pushed before the frame leaves: the response may beat us back.
    std::lock_guard fifo_lock(out.fifo_mu);
    if (out.fifo.empty()) out.last_progress_ns.store(NowNs(), std::memory_order_relaxed);
    out.fifo.Push(op);
  }
  FrameHeader header{op.type, StatusCode::kOk, op.id, op.remote, op.length};
  const uint64_t payload = op.type == FrameType::kWrite ? op.length : 0;
  Status status =
      op.local_device >= 0 && payload > 0
          ? out.staging.Send(out.socket, {}, EncodeFrameHeader(header), op.local_device,
                             op.local, payload, connection_.io_timeout())
          : SendFrame(out.socket, {}, EncodeFrameHeader(header), op.local, payload,
                      connection_.io_timeout());
  out.last_progress_ns.store(NowNs(), std::memory_order_relaxed);
  return status;
}

Status TcpEndpoint::PostOneSided(FrameType type, std::span<const TransferEntry> entries,
                                 TransferRequest& request, uint32_t stream) {
  uint32_t parts = CountFrames(entries);
  if (entries.empty() || parts == 0) return InvalidArgument("tcp: empty or oversized batch");
  OutgoingStream& out = Pick(stream);
  std::lock_guard send_lock(out.send_mu);
  // Checked under send_mu: the completer's final drain takes it too, so an
  // op pushed here is either drained or seen by a live completer.
  if (connection_.closed()) return connection_.ClosedError();
  RequestAccess::Start(request, parts);
  uint32_t pushed = 0;
  Status status;
  for (const auto& entry : entries) {
    auto* local = static_cast<uint8_t*>(entry.local);
    const int device = connection_.DeviceOf(entry.local, entry.length);
    uint64_t offset = 0;
    do {
      uint64_t length = std::min<uint64_t>(entry.length - offset, kMaxFramePayload);
      status = PushAndSend(
          out, {&request, local + offset, entry.remote + offset, length, 0, type, device});
      ++pushed;
      offset += length;
    } while (status.ok() && offset < entry.length);
    if (!status.ok()) break;
  }
  // Once the last op is pushed and sent the completer may finish `request`
  // at any moment: it must not be touched again on the success path.
  if (!status.ok()) {
    // The ops already pushed are finished by the completer's drain; the
    // rest were never sent and are finished here.
    connection_.Fail(status.WithContext("tcp: sending a request"));
    for (uint32_t i = pushed; i < parts; ++i) RequestAccess::FinishPart(request, status, 0);
  }
  return Status::Ok();
}

Status TcpEndpoint::PostSend(const void* data, size_t length, TransferRequest& request,
                             uint32_t stream) {
  if (length > kMaxFramePayload) {
    return InvalidArgument(fmt::format("tcp: a message holds at most {} bytes", kMaxFramePayload));
  }
  OutgoingStream& out = Pick(stream);
  std::lock_guard send_lock(out.send_mu);
  if (connection_.closed()) return connection_.ClosedError();
  RequestAccess::Start(request, 1);
  FrameHeader header{FrameType::kSend, StatusCode::kOk, out.next_id++, 0, length};
  Status status =
      SendFrame(out.socket, {}, EncodeFrameHeader(header), data, length, connection_.io_timeout());
  if (!status.ok()) connection_.Fail(status.WithContext("tcp: sending a message"));
  RequestAccess::Complete(request, status, status.ok() ? length : 0);
  return Status::Ok();
}

Status TcpEndpoint::PostNotify(std::span<const uint8_t> message, TransferRequest& request,
                               uint32_t stream) {
  XFER_RETURN_IF_ERROR(CheckNotificationLength(message.size()).WithContext("tcp"));
  OutgoingStream& out = Pick(stream);
  std::lock_guard send_lock(out.send_mu);
  if (connection_.closed()) return connection_.ClosedError();
  RequestAccess::Start(request, 1);
  FrameHeader header{FrameType::kNotify, StatusCode::kOk, out.next_id++, 0, message.size()};
  Status status = SendFrame(out.socket, {}, EncodeFrameHeader(header), message.data(),
                            message.size(), connection_.io_timeout());
  if (!status.ok()) connection_.Fail(status.WithContext("tcp: sending a notification"));
  RequestAccess::Complete(request, status, 0);
  return Status::Ok();
}

Status TcpEndpoint::PostRecv(void* buffer, size_t capacity, TransferRequest& request) {
  Status status = connection_.recv_queue().Post(buffer, capacity, request);
  if (!status.ok()) return connection_.ClosedError();
  return status;
}

Status TcpEndpoint::Revoke(const LocalRegionView& /*region*/, Deadline deadline) {
  return responder_.Fence(deadline);
}

void TcpEndpoint::FailOnLinkDown(std::shared_ptr<LinkWatch> watch, int ifindex) {
  std::lock_guard lock(close_mu_);
  if (joined_) return;
  link_watch_ = std::move(watch);
  link_down_ = link_watch_->Watch(ifindex, [this](std::string_view interface,
                                                  std::string_view state) {
    // Its queue is never to be delivered: the engine deals the slices again
    // elsewhere (Abandon).
    connection_.AbortOnClose();
    connection_.Fail(ConnectionLost(
        fmt::format("tcp: the link under this rail, {}, is {} (the kernel announced it)",
                    interface, state)));
  });
}

void TcpEndpoint::Abandon() {
  {
    std::lock_guard lock(close_mu_);
    // Set before Close's shutdown, which would otherwise queue a FIN behind
    // the data and have the kernel keep sending both.
    if (!joined_) connection_.AbortOnClose();
  }
  Close();
}

void TcpEndpoint::Close() {
  std::lock_guard lock(close_mu_);
  if (joined_) return;
  link_down_.Reset();  // no announcement reaches a closing connection
  connection_.FailLocally(ConnectionLost("tcp endpoint closed locally"));
  completer_.Join();
  responder_.Join();
  for (auto& out : connection_.outgoing()) {
    std::lock_guard send_lock(out->send_mu);  // no poster is inside the socket
    out->socket.Close();
  }
  for (auto& socket : connection_.incoming()) socket.Close();
  joined_ = true;
}

}  // namespace xfer::transport::tcp
