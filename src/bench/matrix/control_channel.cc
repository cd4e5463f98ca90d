#include "bench/matrix/control_channel.h"

#include <fmt/format.h>

#include "bench/matrix/control_messages.h"

namespace xfer::matrix {
namespace {

const char* OwnTypeName(uint8_t type) {
  switch (static_cast<ControlType>(type)) {
    case ControlType::kHello: return "Hello";
    case ControlType::kHelloReply: return "HelloReply";
    case ControlType::kBufferRequest: return "BufferRequest";
    case ControlType::kBufferReply: return "BufferReply";
    default: return nullptr;
  }
}

// The session messages and framing are ControlLink's.
constexpr bench::ControlProtocol kMatrixProtocol{
    .channel = "matrix control",
    .magic = kControlMagic,
    .max_message = kMaxControlMessage,
    .heartbeat = static_cast<uint8_t>(ControlType::kHeartbeat),
    .done = static_cast<uint8_t>(ControlType::kDone),
    .abort = static_cast<uint8_t>(ControlType::kAbort),
    .type_name = OwnTypeName};

// Decodes the fields of a received message, naming it on failure.
template <typename Decode>
auto DecodeBody(const bench::ControlMessage& message, Decode decode, const char* what)
    -> decltype(decode(message.body())) {
  auto decoded = decode(message.body());
  if (decoded.ok()) return decoded;
  return decoded.status().WithContext(what);
}

constexpr uint8_t Type(ControlType type) { return static_cast<uint8_t>(type); }

}  // namespace

ControlChannel::ControlChannel(Socket socket, std::chrono::milliseconds timeout)
    : link_(std::move(socket), timeout, kMatrixProtocol) {}

Status ControlChannel::SendHello(const Hello& hello) { return link_.Send(EncodeHello(hello)); }

Result<Hello> ControlChannel::RecvHello() {
  auto message = link_.Recv(Type(ControlType::kHello));
  if (!message.ok()) return message.status();
  return DecodeBody(*message, DecodeHello, "matrix control: Hello");
}

Status ControlChannel::SendHelloReply(const HelloReply& reply) {
  return link_.Send(EncodeHelloReply(reply));
}

Result<HelloReply> ControlChannel::RecvHelloReply() {
  auto message = link_.Recv(Type(ControlType::kHelloReply));
  if (!message.ok()) return message.status();
  return DecodeBody(*message, DecodeHelloReply, "matrix control: HelloReply");
}

Status ControlChannel::SendBufferRequest(const BufferRequest& request) {
  return link_.Send(EncodeBufferRequest(request));
}

Result<std::optional<BufferRequest>> ControlChannel::RecvBufferRequestOrDone() {
  auto message = link_.RecvAny();
  if (!message.ok()) return message.status();
  if (message->type == Type(ControlType::kDone)) {
    if (!message->body().empty()) return ProtocolError("matrix control: malformed Done");
    return std::optional<BufferRequest>();
  }
  if (message->type != Type(ControlType::kBufferRequest)) {
    return ProtocolError(fmt::format("matrix control: expected BufferRequest or Done, got {}",
                                     link_.TypeName(message->type)));
  }
  auto request = DecodeBody(*message, DecodeBufferRequest, "matrix control: BufferRequest");
  if (!request.ok()) return request.status();
  return std::optional<BufferRequest>(std::move(*request));
}

Status ControlChannel::SendBufferReply(const BufferReply& reply) {
  return link_.Send(EncodeBufferReply(reply));
}

Result<BufferReply> ControlChannel::RecvBufferReply() {
  auto message = link_.Recv(Type(ControlType::kBufferReply));
  if (!message.ok()) return message.status();
  return DecodeBody(*message, DecodeBufferReply, "matrix control: BufferReply");
}

Status ControlChannel::CheckPeer() {
  auto waiting = link_.WatchPeer();
  if (!waiting.ok()) return waiting.status();
  if (!*waiting) return Status::Ok();
  // The target speaks unprompted only to abort: anything else is a fault.
  auto message = link_.RecvAny();
  if (!message.ok()) return message.status();
  return ProtocolError(fmt::format("matrix control: unexpected {} from the target",
                                   link_.TypeName(message->type)));
}

Status ControlChannel::SendHeartbeat() { return link_.SendHeartbeat(); }

Status ControlChannel::SendDone() { return link_.SendDone(); }

void ControlChannel::SendAbort(const std::string& reason) { link_.SendAbort(reason); }

}  // namespace xfer::matrix
