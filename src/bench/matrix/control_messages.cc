#include "bench/matrix/control_messages.h"

#include <bit>

#include <fmt/format.h>

#include "common/wire.h"

namespace xfer::matrix {
namespace {

WireWriter Begin(ControlType type) {
  WireWriter w;
  w.U32(kControlMagic);
  w.U8(static_cast<uint8_t>(type));
  return w;
}

void PutString(WireWriter& w, const std::string& s) {
  w.String(std::string_view(s).substr(0, kMaxControlString));
}

void PutStrings(WireWriter& w, const std::vector<std::string>& list) {
  const size_t n = std::min(list.size(), kMaxControlList);
  w.U16(static_cast<uint16_t>(n));
  for (size_t i = 0; i < n; ++i) PutString(w, list[i]);
}

Status GetCount(WireReader& r, size_t& n, const char* what) {
  uint16_t count = 0;
  XFER_RETURN_IF_ERROR(r.U16(count));
  if (count > kMaxControlList) {
    return ProtocolError(fmt::format("{}: {} entries, at most {}", what, count, kMaxControlList));
  }
  n = count;
  return Status::Ok();
}

Status GetStrings(WireReader& r, std::vector<std::string>& list, const char* what) {
  size_t n = 0;
  XFER_RETURN_IF_ERROR(GetCount(r, n, what));
  list.resize(n);
  for (std::string& s : list) XFER_RETURN_IF_ERROR(r.String(s, kMaxControlString));
  return Status::Ok();
}

Status GetBool(WireReader& r, bool& v) {
  uint8_t byte = 0;
  XFER_RETURN_IF_ERROR(r.U8(byte));
  if (byte > 1) return ProtocolError(fmt::format("flag byte {} is neither 0 nor 1", byte));
  v = byte == 1;
  return Status::Ok();
}

void PutAgreement(WireWriter& w, const MatrixAgreement& a) {
  PutStrings(w, a.directions);
  PutStrings(w, a.transports);
  const size_t n = std::min(a.block_sizes.size(), kMaxControlList);
  w.U16(static_cast<uint16_t>(n));
  for (size_t i = 0; i < n; ++i) w.U64(a.block_sizes[i]);
  w.U64(a.transfer_size);
  w.U32(a.batch);
  w.U32(a.loops);
  w.U32(a.warmup);
  w.U32(a.streams);
  PutString(w, a.memory);
  PutString(w, a.remote_memory);
  w.U8(a.verify ? 1 : 0);
}

Status GetAgreement(WireReader& r, MatrixAgreement& a) {
  XFER_RETURN_IF_ERROR(GetStrings(r, a.directions, "directions"));
  XFER_RETURN_IF_ERROR(GetStrings(r, a.transports, "transports"));
  size_t n = 0;
  XFER_RETURN_IF_ERROR(GetCount(r, n, "block sizes"));
  a.block_sizes.resize(n);
  for (uint64_t& size : a.block_sizes) XFER_RETURN_IF_ERROR(r.U64(size));
  XFER_RETURN_IF_ERROR(r.U64(a.transfer_size));
  XFER_RETURN_IF_ERROR(r.U32(a.batch));
  XFER_RETURN_IF_ERROR(r.U32(a.loops));
  XFER_RETURN_IF_ERROR(r.U32(a.warmup));
  XFER_RETURN_IF_ERROR(r.U32(a.streams));
  XFER_RETURN_IF_ERROR(r.String(a.memory, kMaxControlString));
  XFER_RETURN_IF_ERROR(r.String(a.remote_memory, kMaxControlString));
  return GetBool(r, a.verify);
}

void PutFingerprint(WireWriter& w, const HostFingerprint& f) {
  PutString(w, f.hostname);
  PutString(w, f.kernel);
  PutString(w, f.cpu_model);
  w.U32(f.cpu_count);
  PutString(w, f.xfer_version);
  const size_t n = std::min(f.rdma.size(), kMaxControlList);
  w.U16(static_cast<uint16_t>(n));
  for (size_t i = 0; i < n; ++i) {
    const RdmaPortFingerprint& port = f.rdma[i];
    PutString(w, port.device);
    w.U32(port.port);
    PutString(w, port.state);
    PutString(w, port.link_layer);
    w.U64(std::bit_cast<uint64_t>(port.rate_gbps));
  }
}

Status GetFingerprint(WireReader& r, HostFingerprint& f) {
  XFER_RETURN_IF_ERROR(r.String(f.hostname, kMaxControlString));
  XFER_RETURN_IF_ERROR(r.String(f.kernel, kMaxControlString));
  XFER_RETURN_IF_ERROR(r.String(f.cpu_model, kMaxControlString));
  XFER_RETURN_IF_ERROR(r.U32(f.cpu_count));
  XFER_RETURN_IF_ERROR(r.String(f.xfer_version, kMaxControlString));
  size_t n = 0;
  XFER_RETURN_IF_ERROR(GetCount(r, n, "RDMA ports"));
  f.rdma.resize(n);
  for (RdmaPortFingerprint& port : f.rdma) {
    XFER_RETURN_IF_ERROR(r.String(port.device, kMaxControlString));
    XFER_RETURN_IF_ERROR(r.U32(port.port));
    XFER_RETURN_IF_ERROR(r.String(port.state, kMaxControlString));
    XFER_RETURN_IF_ERROR(r.String(port.link_layer, kMaxControlString));
    uint64_t bits = 0;
    XFER_RETURN_IF_ERROR(r.U64(bits));
    port.rate_gbps = std::bit_cast<double>(bits);
  }
  return Status::Ok();
}

}  // namespace

std::vector<uint8_t> EncodeHello(const Hello& hello) {
  WireWriter w = Begin(ControlType::kHello);
  PutAgreement(w, hello.agreement);
  PutFingerprint(w, hello.fingerprint);
  return w.bytes();
}

std::vector<uint8_t> EncodeHelloReply(const HelloReply& reply) {
  WireWriter w = Begin(ControlType::kHelloReply);
  w.U8(reply.accepted ? 1 : 0);
  PutString(w, reply.refusal);
  w.U16(reply.engine_port);
  PutFingerprint(w, reply.fingerprint);
  const size_t n = std::min(reply.buffers.size(), kMaxControlList);
  w.U16(static_cast<uint16_t>(n));
  for (size_t i = 0; i < n; ++i) {
    const TargetBuffer& b = reply.buffers[i];
    PutString(w, b.placement);
    w.U8(b.available ? 1 : 0);
    PutString(w, b.reason);
    w.U64(b.address);
    w.U64(b.length);
  }
  return w.bytes();
}

std::vector<uint8_t> EncodeBufferRequest(const BufferRequest& request) {
  WireWriter w = Begin(ControlType::kBufferRequest);
  w.U8(static_cast<uint8_t>(request.op));
  PutString(w, request.placement);
  w.U64(request.seed);
  w.U64(request.length);
  return w.bytes();
}

std::vector<uint8_t> EncodeBufferReply(const BufferReply& reply) {
  WireWriter w = Begin(ControlType::kBufferReply);
  w.U8(reply.ok ? 1 : 0);
  PutString(w, reply.message);
  return w.bytes();
}

std::vector<uint8_t> EncodeBare(ControlType type) { return Begin(type).bytes(); }

std::vector<uint8_t> EncodeAbort(const std::string& reason) {
  WireWriter w = Begin(ControlType::kAbort);
  PutString(w, reason);
  return w.bytes();
}

Result<ControlFrame> DecodeFrame(std::span<const uint8_t> message) {
  WireReader r(message);
  uint32_t magic = 0;
  uint8_t type = 0;
  if (!r.U32(magic).ok() || magic != kControlMagic || !r.U8(type).ok()) {
    return ProtocolError("the control peer is not an xfer matrix (bad magic)");
  }
  if (type < static_cast<uint8_t>(ControlType::kHello) ||
      type > static_cast<uint8_t>(ControlType::kAbort)) {
    return ProtocolError(fmt::format("unknown control message type {}", type));
  }
  return ControlFrame{static_cast<ControlType>(type), message.subspan(5)};
}

Result<Hello> DecodeHello(std::span<const uint8_t> body) {
  WireReader r(body);
  Hello hello;
  XFER_RETURN_IF_ERROR(GetAgreement(r, hello.agreement));
  XFER_RETURN_IF_ERROR(GetFingerprint(r, hello.fingerprint));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return hello;
}

Result<HelloReply> DecodeHelloReply(std::span<const uint8_t> body) {
  WireReader r(body);
  HelloReply reply;
  XFER_RETURN_IF_ERROR(GetBool(r, reply.accepted));
  XFER_RETURN_IF_ERROR(r.String(reply.refusal, kMaxControlString));
  XFER_RETURN_IF_ERROR(r.U16(reply.engine_port));
  XFER_RETURN_IF_ERROR(GetFingerprint(r, reply.fingerprint));
  size_t n = 0;
  XFER_RETURN_IF_ERROR(GetCount(r, n, "target buffers"));
  reply.buffers.resize(n);
  for (TargetBuffer& b : reply.buffers) {
    XFER_RETURN_IF_ERROR(r.String(b.placement, kMaxControlString));
    XFER_RETURN_IF_ERROR(GetBool(r, b.available));
    XFER_RETURN_IF_ERROR(r.String(b.reason, kMaxControlString));
    XFER_RETURN_IF_ERROR(r.U64(b.address));
    XFER_RETURN_IF_ERROR(r.U64(b.length));
  }
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return reply;
}

Result<BufferRequest> DecodeBufferRequest(std::span<const uint8_t> body) {
  WireReader r(body);
  BufferRequest request;
  uint8_t op = 0;
  XFER_RETURN_IF_ERROR(r.U8(op));
  if (op < static_cast<uint8_t>(BufferOp::kFill) || op > static_cast<uint8_t>(BufferOp::kCheck)) {
    return ProtocolError(fmt::format("unknown buffer operation {}", op));
  }
  request.op = static_cast<BufferOp>(op);
  XFER_RETURN_IF_ERROR(r.String(request.placement, kMaxControlString));
  XFER_RETURN_IF_ERROR(r.U64(request.seed));
  XFER_RETURN_IF_ERROR(r.U64(request.length));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return request;
}

Result<BufferReply> DecodeBufferReply(std::span<const uint8_t> body) {
  WireReader r(body);
  BufferReply reply;
  XFER_RETURN_IF_ERROR(GetBool(r, reply.ok));
  XFER_RETURN_IF_ERROR(r.String(reply.message, kMaxControlString));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return reply;
}

Result<std::string> DecodeAbort(std::span<const uint8_t> body) {
  WireReader r(body);
  std::string reason;
  XFER_RETURN_IF_ERROR(r.String(reason, kMaxControlString));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return reason;
}

}  // namespace xfer::matrix
