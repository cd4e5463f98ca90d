#include "bench/matrix/matrix_target.h"

#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "bench/matrix/control_channel.h"
#include "bench/matrix/data_pattern.h"
#include "bench/matrix/matrix_agreement.h"
#include "bench/matrix/side_buffers.h"
#include "xfer/engine.h"

namespace xfer::matrix {
namespace {

Result<std::unique_ptr<Engine>> MakeEngine(const MatrixConfig& config, const Listener& listener) {
  EngineOptions options;
  options.name = "xfer-matrix-target";
  // The engine listens where the control connection does (all addresses by
  // default, as perftest's servers), on a port of its own.
  options.listen_address = FormatHostPort({listener.local_address().host, 0});
  options.connect_timeout = config.timeout;
  options.io_timeout = config.timeout;
  options.verbs.device = config.verbs.device;
  options.verbs.port = config.verbs.port;
  options.verbs.gid_index = config.verbs.gid_index;
  return Engine::Create(options);
}

// What the target does to its own buffer on the initiator's behalf. Every
// field came from the peer: the placement must be one of ours and the
// length inside the buffer.
BufferReply Serve(const BufferRequest& request, const std::vector<PlacedBuffer>& buffers) {
  const PlacedBuffer* buffer = FindBuffer(buffers, request.placement);
  if (buffer == nullptr || !buffer->available) {
    return {false, fmt::format("no {} buffer on the target", request.placement)};
  }
  if (request.length > buffer->region.length) {
    return {false, fmt::format("{} bytes asked of a {}-byte buffer", request.length,
                               buffer->region.length)};
  }
  auto* data = static_cast<uint8_t*>(buffer->region.address);
  switch (request.op) {
    case BufferOp::kFill:
      FillPattern(data, request.length, request.seed);
      return {true, ""};
    case BufferOp::kPoison:
      PoisonPattern(data, request.length);
      return {true, ""};
    case BufferOp::kCheck:
      if (auto bad = FindPatternMismatch(data, request.length, request.seed)) {
        return {false, fmt::format("byte {} differs from what the initiator wrote", *bad)};
      }
      return {true, ""};
  }
  return {false, "unknown buffer operation"};
}

struct Accepted {
  std::unique_ptr<ControlChannel> control;
  Hello hello;
};

// Accepts connections until one is a matrix initiator that says Hello,
// within config.accept_timeout. Anything else that connects (a scanner, a
// stray HTTP request, a peer silent for config.timeout) is turned away with
// a line on stderr, and the wait goes on.
Result<Accepted> AcceptInitiator(const MatrixConfig& config, Listener& listener) {
  const Deadline deadline = Deadline::After(config.accept_timeout);
  for (;;) {
    auto socket = listener.Accept(deadline);
    if (!socket.ok()) return socket.status().WithContext("waiting for an initiator");
    const std::string from = socket->PeerHost();
    auto control = std::make_unique<ControlChannel>(std::move(socket.value()), config.timeout);
    auto hello = control->RecvHello();
    if (hello.ok()) return Accepted{std::move(control), std::move(hello.value())};
    const StatusCode code = hello.status().code();
    if (code != StatusCode::kProtocolError && code != StatusCode::kTimeout &&
        code != StatusCode::kConnectionLost) {
      return hello.status();
    }
    std::fprintf(stderr, "xfer: not an xfer matrix initiator (from %s): %s; still waiting\n",
                 from.empty() ? "?" : from.c_str(), hello.status().message().c_str());
  }
}

}  // namespace

Status RunMatrixTarget(const MatrixConfig& config, const HostFingerprint& local, Listener& listener,
                       const std::function<void(const std::string&)>& notice) {
  auto engine = MakeEngine(config, listener);
  if (!engine.ok()) return engine.status().WithContext("creating the engine");

  notice(fmt::format("xfer matrix: waiting for an initiator on port {}",
                     listener.local_address().port));
  auto accepted = AcceptInitiator(config, listener);
  if (!accepted.ok()) return accepted.status();
  listener.Close();  // one initiator per target, as perftest's servers
  ControlChannel& control = *accepted->control;
  const Hello* hello = &accepted->hello;
  HelloReply reply;
  reply.fingerprint = local;
  reply.refusal = CompareAgreements(AgreementOf(config), hello->agreement);
  if (!reply.refusal.empty()) {
    (void)control.SendHelloReply(reply);
    return InvalidArgument("the initiator asked for another matrix: " + reply.refusal);
  }
  // Registered before the reply: the initiator's engine connects after it,
  // and a peer learns only the regions that exist when it connects.
  auto buffers = AllocateSideBuffers(
      **engine, PlacementsNeeded(config.directions, false, config.remote_memory),
      config.transfer_size);
  if (!buffers.ok()) {
    reply.refusal = "target: " + buffers.status().ToString();
    (void)control.SendHelloReply(reply);
    return buffers.status();
  }
  for (const PlacedBuffer& buffer : *buffers) {
    reply.buffers.push_back({std::string(buffer.placement->name), buffer.available, buffer.reason,
                             reinterpret_cast<uint64_t>(buffer.region.address),
                             buffer.region.length});
  }
  auto port = ParseHostPort((*engine)->listen_address());
  reply.engine_port = port.ok() ? port->port : 0;
  reply.accepted = true;
  XFER_RETURN_IF_ERROR(control.SendHelloReply(reply));

  for (;;) {
    auto request = control.RecvBufferRequestOrDone();
    if (!request.ok()) return request.status().WithContext("initiator");
    if (!request->has_value()) return Status::Ok();
    XFER_RETURN_IF_ERROR(control.SendBufferReply(Serve(**request, *buffers)));
  }
}

}  // namespace xfer::matrix
