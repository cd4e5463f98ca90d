#include "transport/tcp/responder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <utility>

#include "common/clock.h"
#include "common/request_access.h"
#include "transport/tcp/payload_io.h"

namespace xfer::transport::tcp {
namespace {

using internal::RequestAccess;

// Header-only responses queued per socket before a forced send.
constexpr size_t kMaxPendingResponses = 64;

void* AsPointer(uint64_t address) {
  return reinterpret_cast<void*>(static_cast<uintptr_t>(address));
}

}  // namespace

// Brackets the service of one WRITE or READ in serving_ (see there).
class Responder::ServingScope {
 public:
  explicit ServingScope(std::atomic<uint64_t>& serving) : serving_(serving) {
    serving_.fetch_add(1, std::memory_order_seq_cst);
  }
  // Release: the request's memory accesses happen before a Fence() that
  // sees the count move on.
  ~ServingScope() { serving_.fetch_add(1, std::memory_order_release); }
  ServingScope(const ServingScope&) = delete;
  ServingScope& operator=(const ServingScope&) = delete;

 private:
  std::atomic<uint64_t>& serving_;
};

Status Responder::Fence(Deadline deadline) {
  const uint64_t seen = serving_.load(std::memory_order_seq_cst);
  if (seen % 2 == 0) return Status::Ok();
  Status status;
  while (serving_.load(std::memory_order_acquire) == seen) {
    if (status.ok() && deadline.expired()) {
      status = Timeout("tcp: a peer request into a deregistered region was still being served "
                       "at the deadline; the connection was failed to end it");
      connection_.Fail(status);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return status;
}

Responder::Responder(Connection& connection)
    : connection_(connection), staging_(connection.devices()) {
  incoming_.reserve(connection_.incoming().size());
  for (auto& socket : connection_.incoming()) {
    fds_.push_back({socket.fd(), POLLIN, 0});
    incoming_.emplace_back(socket);
    incoming_.back().pending.reserve(kMaxPendingResponses * kFrameHeaderSize);
  }
}

Responder::~Responder() { Join(); }

void Responder::Start() {
  thread_ = std::thread([this] { Run(); });
}

void Responder::Join() {
  if (thread_.joinable()) thread_.join();
}

void Responder::Run() {
  int wait_ms = -1;
  while (!connection_.closed()) {
    // Without a half-sent frame there is no timeout: an idle peer is
    // legitimate, and Fail() shuts the sockets down, which wakes this poll.
    int ready = poll(fds_.data(), fds_.size(), wait_ms);
    if (ready < 0 && errno != EINTR) {
      connection_.Fail(IoError(ErrnoMessage("tcp responder: poll", errno)));
      break;
    }
    for (size_t i = 0; ready > 0 && i < fds_.size() && !connection_.closed(); ++i) {
      if (fds_[i].revents == 0) continue;
      Status status = Service(incoming_[i]);
      if (!status.ok()) connection_.Fail(status);
    }
    wait_ms = CheckStalls();
  }
  const Status reason = connection_.reason();
  if (reason.code() == StatusCode::kConnectionLost && !connection_.closed_locally()) {
    ServeWhatArrived();
  }
  connection_.recv_queue().FailAll(reason);
}

void Responder::ServeWhatArrived() {
  // Fail() shut the sockets down: each read returns what had arrived, then
  // the end. Bounded all the same (a frame's worth of buffer per round).
  constexpr int kRounds = 256;
  for (Incoming& in : incoming_) {
    for (int round = 0; round < kRounds; ++round) {
      if (!Service(in).ok()) break;
    }
  }
}

Status Responder::Service(Incoming& in) {
  auto filled = in.reader.Fill();
  // Requests that arrived before an EOF are still served.
  for (;;) {
    auto header = in.reader.Next();
    if (!header.ok()) return header.status();
    if (!header->has_value()) break;
    XFER_RETURN_IF_ERROR(HandleRequest(in, **header));
  }
  XFER_RETURN_IF_ERROR(Flush(in));
  if (!filled.ok()) return filled.status().WithContext("tcp: reading requests");
  if (*filled || !in.reader.partial()) {
    in.stalled_since_ns = in.reader.partial() ? NowNs() : 0;
  }
  return Status::Ok();
}

Status Responder::HandleRequest(Incoming& in, const FrameHeader& header) {
  switch (header.type) {
    case FrameType::kWrite:
      return ServeWrite(in, header);
    case FrameType::kRead:
      return ServeRead(in, header);
    case FrameType::kSend:
      return ServeSend(in, header);
    case FrameType::kNotify:
      return ServeNotify(in, header);
    case FrameType::kWriteAck:
    case FrameType::kReadData:
      break;
  }
  return ProtocolError(
      fmt::format("tcp: {} frame on a request stream", FrameTypeName(header.type)));
}

Status Responder::ServeWrite(Incoming& in, const FrameHeader& header) {
  ServingScope serving(serving_);
  Status verdict =
      connection_.local().Check(header.remote_address, header.length, Access::kRemoteWrite);
  // Refused payloads are discarded (null destination): memory untouched.
  void* dst = verdict.ok() ? AsPointer(header.remote_address) : nullptr;
  if (!verdict.ok()) in.refused_since_notify = true;
  if (!in.reader.Buffered(header.length)) XFER_RETURN_IF_ERROR(Flush(in));
  const auto timeout = connection_.io_timeout();
  const int device = dst != nullptr ? connection_.DeviceOf(dst, header.length) : -1;
  if (device >= 0) {
    XFER_RETURN_IF_ERROR(staging_.Receive(device, dst, header.length,
                                          [&](void* host, uint64_t bytes) {
                                            return in.reader.ReadPayload(host, bytes, timeout);
                                          }));
  } else {
    XFER_RETURN_IF_ERROR(in.reader.ReadPayload(dst, header.length, timeout));
  }
  FrameHeader ack = header;
  ack.type = FrameType::kWriteAck;
  ack.status = verdict.code();
  return Respond(in, ack);
}

Status Responder::ServeRead(Incoming& in, const FrameHeader& header) {
  ServingScope serving(serving_);
  Status verdict =
      connection_.local().Check(header.remote_address, header.length, Access::kRemoteRead);
  FrameHeader reply = header;
  reply.type = FrameType::kReadData;
  reply.status = verdict.code();
  if (!verdict.ok()) {
    in.refused_since_notify = true;
    reply.length = 0;
    return Respond(in, reply);
  }
  // Queued responses go first, in the same sendmsg, to keep wire order.
  const void* src = AsPointer(header.remote_address);
  const int device = connection_.DeviceOf(src, reply.length);
  Status status =
      device >= 0 ? staging_.Send(*in.socket, in.pending, EncodeFrameHeader(reply), device, src,
                                  reply.length, connection_.io_timeout())
                  : SendFrame(*in.socket, in.pending, EncodeFrameHeader(reply), src,
                              reply.length, connection_.io_timeout());
  in.pending.clear();
  return status;
}

// REQUIRES: DecodeFrameHeader accepted the frame, which bounds its length.
Status Responder::ServeNotify(Incoming& in, const FrameHeader& header) {
  uint8_t body[kMaxNotificationBytes];
  XFER_RETURN_IF_ERROR(in.reader.ReadPayload(body, header.length, connection_.io_timeout()));
  if (std::exchange(in.refused_since_notify, false)) return Status::Ok();
  return connection_.notifications()
      .Deliver(std::span<const uint8_t>(body, static_cast<size_t>(header.length)))
      .WithContext("tcp: a notification from the peer");
}

Status Responder::ServeSend(Incoming& in, const FrameHeader& header) {
  auto timeout = connection_.io_timeout();
  // Waiting on the application: hold no acknowledgement meanwhile, or an
  // application that waits for one before posting its receive would stall.
  for (auto& other : incoming_) XFER_RETURN_IF_ERROR(Flush(other));
  auto recv = connection_.recv_queue().WaitPop(Deadline::After(timeout));
  if (!recv) {
    if (connection_.closed()) return connection_.reason();
    return Timeout(fmt::format(
        "tcp: peer sent a {}-byte message and no receive was posted within {} ms",
        header.length, timeout.count()));
  }
  if (header.length > recv->capacity) {
    RequestAccess::Complete(*recv->request,
                            InvalidArgument(fmt::format("tcp: a {}-byte message does not fit the "
                                                        "posted {}-byte receive; dropped",
                                                        header.length, recv->capacity)),
                            0);
    return in.reader.ReadPayload(nullptr, header.length, timeout);
  }
  Status status = in.reader.ReadPayload(recv->buffer, header.length, timeout);
  RequestAccess::Complete(*recv->request, status, status.ok() ? header.length : 0);
  return status;
}

Status Responder::Respond(Incoming& in, const FrameHeader& response) {
  if (in.pending.size() + kFrameHeaderSize > kMaxPendingResponses * kFrameHeaderSize) {
    XFER_RETURN_IF_ERROR(Flush(in));
  }
  FrameBytes bytes = EncodeFrameHeader(response);
  in.pending.insert(in.pending.end(), bytes.begin(), bytes.end());
  return Status::Ok();
}

Status Responder::Flush(Incoming& in) {
  if (in.pending.empty()) return Status::Ok();
  Status status = in.socket->SendAll(in.pending.data(), in.pending.size(),
                                     Deadline::After(connection_.io_timeout()));
  in.pending.clear();
  return status;
}

int Responder::CheckStalls() {
  uint64_t now = NowNs();
  auto timeout = connection_.io_timeout();
  auto limit = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count());
  bool any = false;
  for (auto& in : incoming_) {
    if (in.stalled_since_ns == 0) continue;
    if (now - in.stalled_since_ns > limit) {
      connection_.Fail(Timeout(fmt::format(
          "tcp: peer left a request frame half-sent for {} ms", timeout.count())));
      return -1;
    }
    any = true;
  }
  return any ? static_cast<int>(std::clamp<int64_t>(timeout.count() / 4, 5, 250)) : -1;
}

}  // namespace xfer::transport::tcp
