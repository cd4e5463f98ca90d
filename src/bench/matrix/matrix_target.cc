#include "bench/matrix/matrix_target.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/model/accept_peer.h"
#include "bench/model/interruption.h"
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

// The next initiator's Hello, from the first connection that sends one
// before `deadline`; stray connections are turned away.
Result<Accepted> AcceptInitiator(const MatrixConfig& config, Listener& listener, Deadline deadline) {
  return bench::AcceptPeer(
      listener, deadline, bench::NeverStopped(), "an xfer matrix initiator",
      "waiting for an initiator (--accept_timeout)",
      [&](Socket socket) -> Result<Accepted> {
        auto control = std::make_unique<ControlChannel>(std::move(socket), config.timeout);
        auto hello = control->RecvHello();
        if (!hello.ok()) return hello.status();
        return Accepted{std::move(control), std::move(hello.value())};
      });
}

// The reply that accepts an initiator: where this side's buffers are.
HelloReply AcceptingReply(const HostFingerprint& local, const std::vector<PlacedBuffer>& buffers,
                          const Engine& engine) {
  HelloReply reply;
  reply.fingerprint = local;
  for (const PlacedBuffer& buffer : buffers) {
    reply.buffers.push_back({std::string(buffer.placement->name), buffer.available, buffer.reason,
                             reinterpret_cast<uint64_t>(buffer.region.address),
                             buffer.region.length});
  }
  auto port = ParseHostPort(engine.listen_address());
  reply.engine_port = port.ok() ? port->port : 0;
  reply.accepted = true;
  return reply;
}

// Serves buffer requests, starting with `first`, until the initiator's Done.
Status Serve(ControlChannel& control, std::optional<BufferRequest> first,
             const std::vector<PlacedBuffer>& buffers) {
  for (std::optional<BufferRequest> request = std::move(first); request.has_value();) {
    XFER_RETURN_IF_ERROR(control.SendBufferReply(Serve(*request, buffers)));
    auto next = control.RecvBufferRequestOrDone();
    if (!next.ok()) return next.status().WithContext("initiator");
    request = std::move(*next);
  }
  return Status::Ok();
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
  const Deadline deadline = Deadline::After(config.accept_timeout);
  // Allocated for the first initiator that agrees, kept for the next one if
  // that one is turned away. Registered before the reply: the initiator's
  // engine connects after it, and a peer learns only the regions that exist
  // when it connects.
  std::optional<std::vector<PlacedBuffer>> buffers;
  for (;;) {
    auto accepted = AcceptInitiator(config, listener, deadline);
    if (!accepted.ok()) return accepted.status();
    ControlChannel& control = *accepted->control;
    const std::string from = control.PeerHost();
    HelloReply refusal;
    refusal.fingerprint = local;
    refusal.refusal = CompareAgreements(AgreementOf(config), accepted->hello.agreement);
    Status turn;
    if (!refusal.refusal.empty()) {
      (void)control.SendHelloReply(refusal);
      turn = InvalidArgument("the initiator asked for another matrix: " + refusal.refusal);
    } else {
      if (!buffers) {
        auto placed = AllocateSideBuffers(
            **engine, PlacementsNeeded(config.directions, false, config.remote_memory),
            config.transfer_size, config.cuda_device);
        if (!placed.ok()) {
          refusal.refusal = "target: " + placed.status().ToString();
          (void)control.SendHelloReply(refusal);
          return placed.status();
        }
        buffers = std::move(*placed);
      }
      XFER_RETURN_IF_ERROR(control.SendHelloReply(AcceptingReply(local, *buffers, **engine)));
      // Its first request says its engine connected; an Abort or a hang-up
      // instead says it could not (another secret, say).
      auto first = control.RecvBufferRequestOrDone();
      if (first.ok()) {
        listener.Close();  // one initiator per target, as perftest's servers
        return Serve(control, std::move(*first), *buffers);
      }
      turn = first.status().WithContext("initiator");
    }
    if (!bench::IsTurnedAway(turn)) return turn;
    bench::ReportTurnedAway("an", "initiator", from, turn);
  }
}

}  // namespace xfer::matrix
