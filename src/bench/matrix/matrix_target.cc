#include "bench/matrix/matrix_target.h"

#include <memory>

#include <fmt/format.h>

#include "bench/accept_peer.h"
#include "bench/matrix/control_channel.h"
#include "bench/matrix/data_pattern.h"
#include "bench/matrix/matrix_agreement.h"
#include "bench/matrix/matrix_engine.h"
#include "bench/matrix/side_buffers.h"
#include "xfer/engine.h"

namespace xfer::matrix {
namespace {

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
  if (buffer->region.kind == MemoryKind::kCuda) {
    // The pattern is the CPU's to write and check; device memory is not.
    return {false, fmt::format("the {} buffer is CUDA device memory, which the target's CPU "
                               "cannot fill or check", request.placement)};
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

// The initiator's Hello, from the first connection that sends one.
Result<Accepted> AcceptInitiator(const MatrixConfig& config, Listener& listener) {
  return bench::AcceptPeer(
      listener, Deadline::After(config.accept_timeout), "an xfer matrix initiator",
      "waiting for an initiator", [&](Socket socket) -> Result<Accepted> {
        auto control = std::make_unique<ControlChannel>(std::move(socket), config.timeout);
        auto hello = control->RecvHello();
        if (!hello.ok()) return hello.status();
        return Accepted{std::move(control), std::move(hello.value())};
      });
}

}  // namespace

Status RunMatrixTarget(const MatrixConfig& config, const HostFingerprint& local, Listener& listener,
                       const std::function<void(const std::string&)>& notice) {
  // The engine listens where the control connection does (all addresses by
  // default, as perftest's servers), on a port of its own.
  auto engine = CreateMatrixEngine(config, "xfer-matrix-target",
                                   FormatHostPort({listener.local_address().host, 0}));
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
      config.transfer_size, config.cuda_device);
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
