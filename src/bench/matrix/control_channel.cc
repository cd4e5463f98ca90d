#include "bench/matrix/control_channel.h"

#include <poll.h>

#include <fmt/format.h>

#include "bench/matrix/control_messages.h"

namespace xfer::matrix {
namespace {

const char* TypeName(uint8_t type) {
  switch (static_cast<ControlType>(type)) {
    case ControlType::kHello: return "Hello";
    case ControlType::kHelloReply: return "HelloReply";
    case ControlType::kBufferRequest: return "BufferRequest";
    case ControlType::kBufferReply: return "BufferReply";
    case ControlType::kHeartbeat: return "Heartbeat";
    case ControlType::kDone: return "Done";
    case ControlType::kAbort: return "Abort";
  }
  return "?";
}

template <typename T>
Result<T> WithContext(Result<T> result, const char* what) {
  if (result.ok()) return result;
  return result.status().WithContext(what);
}

}  // namespace

Status ControlChannel::Send(const std::vector<uint8_t>& body, std::chrono::milliseconds timeout) {
  std::lock_guard lock(send_mu_);
  Status status = socket_.SendMessage(body, Deadline::After(timeout));
  return status.ok() ? status : status.WithContext("matrix control connection");
}

Result<std::pair<uint8_t, std::vector<uint8_t>>> ControlChannel::RecvAny() {
  for (;;) {  // each heartbeat restarts the timeout
    auto message = socket_.RecvMessage(kMaxControlMessage, Deadline::After(timeout_));
    if (!message.ok()) return message.status().WithContext("matrix control connection");
    auto frame = DecodeFrame(*message);
    if (!frame.ok()) return frame.status();
    if (frame->type == ControlType::kHeartbeat) continue;
    if (frame->type == ControlType::kAbort) {
      auto reason = DecodeAbort(frame->body);
      return ConnectionLost("the peer failed: " + (reason.ok() ? *reason : "(no reason given)"));
    }
    return std::pair{static_cast<uint8_t>(frame->type),
                     std::vector<uint8_t>(frame->body.begin(), frame->body.end())};
  }
}

Result<std::vector<uint8_t>> ControlChannel::Recv(uint8_t expected_type) {
  auto message = RecvAny();
  if (!message.ok()) return message.status();
  if (message->first != expected_type) {
    return ProtocolError(fmt::format("matrix control: expected {}, got {}", TypeName(expected_type),
                                     TypeName(message->first)));
  }
  return std::move(message->second);
}

Status ControlChannel::SendHello(const Hello& hello) { return Send(EncodeHello(hello), timeout_); }

Result<Hello> ControlChannel::RecvHello() {
  auto body = Recv(static_cast<uint8_t>(ControlType::kHello));
  if (!body.ok()) return body.status();
  return WithContext(DecodeHello(*body), "matrix control: Hello");
}

Status ControlChannel::SendHelloReply(const HelloReply& reply) {
  return Send(EncodeHelloReply(reply), timeout_);
}

Result<HelloReply> ControlChannel::RecvHelloReply() {
  auto body = Recv(static_cast<uint8_t>(ControlType::kHelloReply));
  if (!body.ok()) return body.status();
  return WithContext(DecodeHelloReply(*body), "matrix control: HelloReply");
}

Status ControlChannel::SendBufferRequest(const BufferRequest& request) {
  return Send(EncodeBufferRequest(request), timeout_);
}

Result<std::optional<BufferRequest>> ControlChannel::RecvBufferRequestOrDone() {
  auto message = RecvAny();
  if (!message.ok()) return message.status();
  if (message->first == static_cast<uint8_t>(ControlType::kDone)) {
    if (!message->second.empty()) return ProtocolError("matrix control: malformed Done");
    return std::optional<BufferRequest>();
  }
  if (message->first != static_cast<uint8_t>(ControlType::kBufferRequest)) {
    return ProtocolError(fmt::format("matrix control: expected BufferRequest or Done, got {}",
                                     TypeName(message->first)));
  }
  auto request = DecodeBufferRequest(message->second);
  if (!request.ok()) return request.status().WithContext("matrix control: BufferRequest");
  return std::optional<BufferRequest>(std::move(*request));
}

Status ControlChannel::SendBufferReply(const BufferReply& reply) {
  return Send(EncodeBufferReply(reply), timeout_);
}

Result<BufferReply> ControlChannel::RecvBufferReply() {
  auto body = Recv(static_cast<uint8_t>(ControlType::kBufferReply));
  if (!body.ok()) return body.status();
  return WithContext(DecodeBufferReply(*body), "matrix control: BufferReply");
}

Status ControlChannel::CheckPeer() {
  pollfd pfd{socket_.fd(), POLLIN, 0};
  if (::poll(&pfd, 1, 0) <= 0) return Status::Ok();
  auto message = RecvAny();
  if (!message.ok()) return message.status();
  return ProtocolError(
      fmt::format("matrix control: unexpected {} from the target", TypeName(message->first)));
}

Status ControlChannel::SendHeartbeat() { return Send(EncodeBare(ControlType::kHeartbeat), timeout_); }

Status ControlChannel::SendDone() { return Send(EncodeBare(ControlType::kDone), timeout_); }

void ControlChannel::SendAbort(const std::string& reason) {
  (void)Send(EncodeAbort(reason), std::chrono::milliseconds(500));
}

}  // namespace xfer::matrix
