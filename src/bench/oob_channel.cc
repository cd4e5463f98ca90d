#include "bench/oob_channel.h"

#include <bit>

#include <fmt/format.h>

#include "common/wire.h"

namespace xfer::bench {
namespace {

constexpr uint32_t kOobMagic = 0x424F4658;  // "XFOB"

enum MessageType : uint8_t {
  kSetup = 1,
  kSetupReply,
  kBarrier,
  kBwResult,
  kLatResult,
  kLatDurationResult,
  kDone,
  kAbort,
  kHeartbeat,
};

// For errors: a peer that sends the wrong message is told which, by name.
const char* OwnTypeName(uint8_t type) {
  switch (type) {
    case kSetup: return "Setup";
    case kSetupReply: return "SetupReply";
    case kBarrier: return "Barrier";
    case kBwResult: return "BwResult";
    case kLatResult: return "LatResult";
    case kLatDurationResult: return "LatDurationResult";
    default: return nullptr;
  }
}

// The session messages and framing are ControlLink's.
constexpr ControlProtocol kOobProtocol{.channel = "out-of-band",
                                       .magic = kOobMagic,
                                       .max_message = kMaxOobMessage,
                                       .heartbeat = kHeartbeat,
                                       .done = kDone,
                                       .abort = kAbort,
                                       .type_name = OwnTypeName};

std::string MessageName(uint8_t type) {
  const char* name = OwnTypeName(type);
  return name != nullptr ? name : fmt::format("message type {}", type);
}

WireWriter Begin(MessageType type) {
  WireWriter w;
  w.U32(kOobMagic);
  w.U8(type);
  return w;
}

void PutDouble(WireWriter& w, double v) { w.U64(std::bit_cast<uint64_t>(v)); }

Status GetDouble(WireReader& r, double& v) {
  uint64_t bits = 0;
  XFER_RETURN_IF_ERROR(r.U64(bits));
  v = std::bit_cast<double>(bits);
  return Status::Ok();
}

// Positions `r` after the header of a message of `expected` type.
Status GetHeader(WireReader& r, MessageType expected) {
  uint32_t magic = 0;
  uint8_t type = 0;
  XFER_RETURN_IF_ERROR(r.U32(magic));
  if (magic != kOobMagic) return ProtocolError("out-of-band peer is not an xfer bench (bad magic)");
  XFER_RETURN_IF_ERROR(r.U8(type));
  if (type != expected) {
    return ProtocolError(fmt::format("out-of-band: expected {}, got {}", MessageName(expected),
                                     MessageName(type)));
  }
  return Status::Ok();
}

const char* VerbName(Verb v) {
  switch (v) {
    case Verb::kWrite: return "write";
    case Verb::kRead: return "read";
    case Verb::kSend: return "send";
    // Atomic tests run on the verbs path only and never reach this channel;
    // named anyway so a mismatch message stays readable.
    case Verb::kAtomic: return "atomic";
  }
  return "?";
}

}  // namespace

RunSetup MakeRunSetup(const BenchParams& params, uint64_t buffer_address, uint64_t buffer_length) {
  RunSetup s;
  s.verb = params.verb;
  s.kind = params.kind;
  s.all_sizes = params.all_sizes;
  s.bidirectional = params.bidirectional;
  s.size = params.all_sizes ? 0 : params.size;
  s.iterations = params.duration_s > 0 ? 0 : params.iterations;
  s.duration_ms = static_cast<uint64_t>(params.duration_s * 1000.0);
  s.qps = params.qps;
  s.post_list = params.post_list;
  s.buffer_address = buffer_address;
  s.buffer_length = buffer_length;
  return s;
}

std::string CompareSetups(const RunSetup& server, const RunSetup& client) {
  auto differ = [](const char* flag, auto a, auto b) {
    return fmt::format("{}: server {}, client {} (perftest-style tests need the same flags on "
                       "both sides)", flag, a, b);
  };
  if (server.verb != client.verb || server.kind != client.kind) {
    return fmt::format("test: server runs {}_{}, client runs {}_{}", VerbName(server.verb),
                       server.kind == Kind::kBandwidth ? "bw" : "lat", VerbName(client.verb),
                       client.kind == Kind::kBandwidth ? "bw" : "lat");
  }
  if (server.all_sizes != client.all_sizes) return differ("-a/--all", server.all_sizes, client.all_sizes);
  if (server.bidirectional != client.bidirectional) {
    return differ("-b/--bidirectional", server.bidirectional, client.bidirectional);
  }
  if (server.size != client.size) return differ("-s/--size", server.size, client.size);
  if (server.duration_ms != client.duration_ms) {
    return differ("-D/--duration [ms]", server.duration_ms, client.duration_ms);
  }
  if (server.iterations != client.iterations) return differ("-n/--iters", server.iterations, client.iterations);
  if (server.qps != client.qps) return differ("-q/--qp", server.qps, client.qps);
  if (server.post_list != client.post_list) return differ("-l/--post_list", server.post_list, client.post_list);
  return "";
}

OobChannel::OobChannel(Socket socket, std::chrono::milliseconds timeout)
    : link_(std::move(socket), timeout, kOobProtocol) {}

Status OobChannel::Send(const std::vector<uint8_t>& message) { return link_.Send(message); }

Result<std::vector<uint8_t>> OobChannel::Recv(uint8_t expected_type) {
  auto message = link_.Recv(expected_type);
  if (!message.ok()) return message.status();
  return std::move(message->bytes);  // the whole message: its decoder checks the header again
}

std::vector<uint8_t> EncodeSetupMessage(const RunSetup& s) {
  WireWriter w = Begin(kSetup);
  w.U8(static_cast<uint8_t>(s.verb));
  w.U8(static_cast<uint8_t>(s.kind));
  w.U8(s.all_sizes ? 1 : 0);
  w.U8(s.bidirectional ? 1 : 0);
  w.U64(s.size);
  w.U64(s.iterations);
  w.U64(s.duration_ms);
  w.U32(s.qps);
  w.U32(s.post_list);
  w.U64(s.buffer_address);
  w.U64(s.buffer_length);
  return w.bytes();
}

Status OobChannel::SendSetup(const RunSetup& s) { return Send(EncodeSetupMessage(s)); }

Result<RunSetup> DecodeSetupMessage(std::span<const uint8_t> message) {
  WireReader r(message);
  XFER_RETURN_IF_ERROR(GetHeader(r, kSetup));
  RunSetup s;
  uint8_t verb = 0, kind = 0, all = 0, duplex = 0;
  XFER_RETURN_IF_ERROR(r.U8(verb));
  XFER_RETURN_IF_ERROR(r.U8(kind));
  XFER_RETURN_IF_ERROR(r.U8(all));
  XFER_RETURN_IF_ERROR(r.U8(duplex));
  // Verb::kAtomic is verbs-only: the engine path refuses it like an unknown test.
  if (verb > static_cast<uint8_t>(Verb::kSend) || kind > static_cast<uint8_t>(Kind::kLatency) ||
      all > 1 || duplex > 1) {
    return ProtocolError("out-of-band setup names an unknown test");
  }
  s.verb = static_cast<Verb>(verb);
  s.kind = static_cast<Kind>(kind);
  s.all_sizes = all == 1;
  s.bidirectional = duplex == 1;
  XFER_RETURN_IF_ERROR(r.U64(s.size));
  XFER_RETURN_IF_ERROR(r.U64(s.iterations));
  XFER_RETURN_IF_ERROR(r.U64(s.duration_ms));
  XFER_RETURN_IF_ERROR(r.U32(s.qps));
  XFER_RETURN_IF_ERROR(r.U32(s.post_list));
  XFER_RETURN_IF_ERROR(r.U64(s.buffer_address));
  XFER_RETURN_IF_ERROR(r.U64(s.buffer_length));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return s;
}

Result<RunSetup> OobChannel::RecvSetup() {
  auto message = Recv(kSetup);
  if (!message.ok()) return message.status();
  return DecodeSetupMessage(*message);
}

std::vector<uint8_t> EncodeSetupReplyMessage(const SetupReply& reply) {
  WireWriter w = Begin(kSetupReply);
  w.U8(reply.accepted ? 1 : 0);
  w.String(reply.refusal.substr(0, 1024));
  w.U16(reply.engine_port);
  w.U64(reply.buffer_address);
  w.U64(reply.buffer_length);
  return w.bytes();
}

Status OobChannel::SendSetupReply(const SetupReply& reply) {
  return Send(EncodeSetupReplyMessage(reply));
}

Result<SetupReply> DecodeSetupReplyMessage(std::span<const uint8_t> message) {
  WireReader r(message);
  XFER_RETURN_IF_ERROR(GetHeader(r, kSetupReply));
  SetupReply reply;
  uint8_t accepted = 0;
  XFER_RETURN_IF_ERROR(r.U8(accepted));
  reply.accepted = accepted == 1;
  XFER_RETURN_IF_ERROR(r.String(reply.refusal, 1024));
  XFER_RETURN_IF_ERROR(r.U16(reply.engine_port));
  XFER_RETURN_IF_ERROR(r.U64(reply.buffer_address));
  XFER_RETURN_IF_ERROR(r.U64(reply.buffer_length));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return reply;
}

Result<SetupReply> OobChannel::RecvSetupReply() {
  auto message = Recv(kSetupReply);
  if (!message.ok()) return message.status();
  return DecodeSetupReplyMessage(*message);
}

std::vector<uint8_t> EncodeBarrierMessage(uint32_t index) {
  WireWriter w = Begin(kBarrier);
  w.U32(index);
  return w.bytes();
}

Status OobChannel::SendBarrier(uint32_t index) { return Send(EncodeBarrierMessage(index)); }

Result<uint32_t> DecodeBarrierMessage(std::span<const uint8_t> message) {
  WireReader r(message);
  XFER_RETURN_IF_ERROR(GetHeader(r, kBarrier));
  uint32_t index = 0;
  XFER_RETURN_IF_ERROR(r.U32(index));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return index;
}

Status OobChannel::RecvBarrier(uint32_t index) {
  auto message = Recv(kBarrier);
  if (!message.ok()) return message.status();
  auto got = DecodeBarrierMessage(*message);
  if (!got.ok()) return got.status();
  if (*got != index) {
    return ProtocolError(fmt::format("out-of-band: peer is at size #{}, this side at #{}", *got, index));
  }
  return Status::Ok();
}

std::vector<uint8_t> EncodeBwResultMessage(const BwResult& result) {
  WireWriter w = Begin(kBwResult);
  w.U64(result.size);
  w.U64(result.iterations);
  PutDouble(w, result.peak_bytes_per_s);
  PutDouble(w, result.avg_bytes_per_s);
  PutDouble(w, result.msg_rate_mpps);
  return w.bytes();
}

Status OobChannel::SendBwResult(const BwResult& result) { return Send(EncodeBwResultMessage(result)); }

Result<BwResult> DecodeBwResultMessage(std::span<const uint8_t> message) {
  WireReader r(message);
  XFER_RETURN_IF_ERROR(GetHeader(r, kBwResult));
  BwResult result;
  XFER_RETURN_IF_ERROR(r.U64(result.size));
  XFER_RETURN_IF_ERROR(r.U64(result.iterations));
  XFER_RETURN_IF_ERROR(GetDouble(r, result.peak_bytes_per_s));
  XFER_RETURN_IF_ERROR(GetDouble(r, result.avg_bytes_per_s));
  XFER_RETURN_IF_ERROR(GetDouble(r, result.msg_rate_mpps));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return result;
}

Result<BwResult> OobChannel::RecvBwResult() {
  auto message = Recv(kBwResult);
  if (!message.ok()) return message.status();
  return DecodeBwResultMessage(*message);
}

std::vector<uint8_t> EncodeLatResultMessage(const LatResult& result) {
  WireWriter w = Begin(kLatResult);
  w.U64(result.size);
  w.U64(result.iterations);
  for (double v : {result.t_min_us, result.t_max_us, result.t_typical_us, result.t_avg_us,
                   result.t_stdev_us, result.p99_us, result.p999_us}) {
    PutDouble(w, v);
  }
  return w.bytes();
}

Status OobChannel::SendLatResult(const LatResult& result) { return Send(EncodeLatResultMessage(result)); }

Result<LatResult> DecodeLatResultMessage(std::span<const uint8_t> message) {
  WireReader r(message);
  XFER_RETURN_IF_ERROR(GetHeader(r, kLatResult));
  LatResult result;
  XFER_RETURN_IF_ERROR(r.U64(result.size));
  XFER_RETURN_IF_ERROR(r.U64(result.iterations));
  for (double* v : {&result.t_min_us, &result.t_max_us, &result.t_typical_us, &result.t_avg_us,
                    &result.t_stdev_us, &result.p99_us,
                    &result.p999_us}) {
    XFER_RETURN_IF_ERROR(GetDouble(r, *v));
  }
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return result;
}

Result<LatResult> OobChannel::RecvLatResult() {
  auto message = Recv(kLatResult);
  if (!message.ok()) return message.status();
  return DecodeLatResultMessage(*message);
}

std::vector<uint8_t> EncodeLatDurationResultMessage(const LatDurationResult& result) {
  WireWriter w = Begin(kLatDurationResult);
  w.U64(result.size);
  w.U64(result.iterations);
  PutDouble(w, result.t_avg_us);
  PutDouble(w, result.tps);
  return w.bytes();
}

Status OobChannel::SendLatDurationResult(const LatDurationResult& result) {
  return Send(EncodeLatDurationResultMessage(result));
}

Result<LatDurationResult> DecodeLatDurationResultMessage(std::span<const uint8_t> message) {
  WireReader r(message);
  XFER_RETURN_IF_ERROR(GetHeader(r, kLatDurationResult));
  LatDurationResult result;
  XFER_RETURN_IF_ERROR(r.U64(result.size));
  XFER_RETURN_IF_ERROR(r.U64(result.iterations));
  XFER_RETURN_IF_ERROR(GetDouble(r, result.t_avg_us));
  XFER_RETURN_IF_ERROR(GetDouble(r, result.tps));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return result;
}

Result<LatDurationResult> OobChannel::RecvLatDurationResult() {
  auto message = Recv(kLatDurationResult);
  if (!message.ok()) return message.status();
  return DecodeLatDurationResultMessage(*message);
}

Status OobChannel::SendDone() { return link_.SendDone(); }

Status OobChannel::SendHeartbeat() { return link_.SendHeartbeat(); }

Status OobChannel::RecvDone() { return link_.RecvDone(); }

void OobChannel::SendAbort(const std::string& reason) { link_.SendAbort(reason); }

Result<bool> OobChannel::WatchPeer() { return link_.WatchPeer(); }

bool OobChannel::Readable() { return link_.Readable(); }

}  // namespace xfer::bench
