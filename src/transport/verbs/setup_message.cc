#include "transport/verbs/setup_message.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "common/wire.h"

namespace xfer::transport::verbs {
namespace {

constexpr uint32_t kMax24Bits = (1u << 24) - 1;
constexpr uint32_t kKnownAccess = static_cast<uint32_t>(Access::kRemoteReadWrite);

void EncodeHeader(WireWriter& out, MessageKind kind) {
  out.U32(kSetupMagic);
  out.U16(kSetupVersion);
  out.U8(static_cast<uint8_t>(kind));
}

Status Bad(std::string what) { return ProtocolError("verbs setup message: " + std::move(what)); }

Status DecodeQp(WireReader& in, bool has_gid, uint32_t index, ::xfer::verbs::QpEndpoint& qp) {
  std::array<uint8_t, 16> gid{};
  XFER_RETURN_IF_ERROR(in.U16(qp.lid));
  XFER_RETURN_IF_ERROR(in.U32(qp.qpn));
  XFER_RETURN_IF_ERROR(in.U32(qp.psn));
  XFER_RETURN_IF_ERROR(in.U32(qp.out_reads));
  for (auto& byte : gid) XFER_RETURN_IF_ERROR(in.U8(byte));
  if (qp.qpn == 0 || qp.qpn > kMax24Bits) {
    return Bad(fmt::format("QP {} has QPN {:#x} (must be 1..2^24-1)", index, qp.qpn));
  }
  if (qp.psn > kMax24Bits) return Bad(fmt::format("QP {} has a PSN above 24 bits", index));
  if (qp.out_reads == 0) return Bad(fmt::format("QP {} offers 0 outstanding reads", index));
  if (has_gid) {
    qp.gid = gid;
  } else if (std::any_of(gid.begin(), gid.end(), [](uint8_t b) { return b != 0; })) {
    return Bad(fmt::format("QP {} carries a GID although the message says it uses none", index));
  }
  return Status::Ok();
}

Status DecodeKey(WireReader& in, uint32_t index, RegionKey& key) {
  uint32_t access = 0;
  XFER_RETURN_IF_ERROR(in.U64(key.id));
  XFER_RETURN_IF_ERROR(in.U64(key.address));
  XFER_RETURN_IF_ERROR(in.U64(key.length));
  XFER_RETURN_IF_ERROR(in.U32(key.rkey));
  XFER_RETURN_IF_ERROR(in.U32(access));
  if (key.length == 0) return Bad(fmt::format("key {} covers no bytes", index));
  if (key.address > UINT64_MAX - key.length) {
    return Bad(fmt::format("key {} wraps the address space", index));
  }
  if ((access & ~kKnownAccess) != 0) {
    return Bad(fmt::format("key {} grants unknown access bits {:#x}", index, access));
  }
  key.access = static_cast<Access>(access);
  return Status::Ok();
}

Status DecodeSetupBody(WireReader& in, SetupMessage& m) {
  uint8_t link_layer = 0;
  uint8_t has_gid = 0;
  uint16_t reserved = 0;
  uint32_t streams = 0;
  XFER_RETURN_IF_ERROR(in.U8(link_layer));
  XFER_RETURN_IF_ERROR(in.U8(m.mtu));
  XFER_RETURN_IF_ERROR(in.U8(has_gid));
  XFER_RETURN_IF_ERROR(in.U16(reserved));
  XFER_RETURN_IF_ERROR(in.U32(streams));
  XFER_RETURN_IF_ERROR(in.U32(m.recv_slot_bytes));
  XFER_RETURN_IF_ERROR(in.U32(m.recv_slots));
  if (link_layer > static_cast<uint8_t>(WireLinkLayer::kEthernet)) {
    return Bad(fmt::format("unknown link layer {}", link_layer));
  }
  m.link_layer = static_cast<WireLinkLayer>(link_layer);
  if (m.mtu < 1 || m.mtu > 5) return Bad(fmt::format("unknown MTU code {}", m.mtu));
  if (has_gid > 1) return Bad(fmt::format("has_gid is {}", has_gid));
  m.has_gid = has_gid == 1;
  if (reserved != 0) return Bad("reserved field is not zero");
  if (streams == 0 || streams > kMaxStreams) {
    return Bad(fmt::format("{} streams (1..{})", streams, kMaxStreams));
  }
  if (m.recv_slot_bytes < kMinRecvSlotBytes || m.recv_slot_bytes > kMaxRecvSlotBytes ||
      m.recv_slots == 0 || m.recv_slots > kMaxRecvSlots) {
    return Bad(fmt::format("receive buffers of {} x {} bytes", m.recv_slots, m.recv_slot_bytes));
  }
  m.qps.resize(streams);
  for (uint32_t i = 0; i < streams; ++i) {
    XFER_RETURN_IF_ERROR(DecodeQp(in, m.has_gid, i, m.qps[i]));
  }
  uint32_t keys = 0;
  XFER_RETURN_IF_ERROR(in.U32(keys));
  if (keys > kMaxSetupKeys) return Bad(fmt::format("{} keys (at most {})", keys, kMaxSetupKeys));
  m.keys.resize(keys);
  for (uint32_t i = 0; i < keys; ++i) XFER_RETURN_IF_ERROR(DecodeKey(in, i, m.keys[i]));
  return Status::Ok();
}

Status DecodeVerdictBody(WireReader& in, Status& verdict) {
  uint8_t code = 0;
  std::string message;
  XFER_RETURN_IF_ERROR(in.U8(code));
  XFER_RETURN_IF_ERROR(in.String(message, kMaxVerdictText));
  if (code > static_cast<uint8_t>(StatusCode::kInternal) ||
      code == static_cast<uint8_t>(StatusCode::kInProgress)) {
    return Bad(fmt::format("verdict with status code {}", code));
  }
  verdict = Status(static_cast<StatusCode>(code), std::move(message));
  return Status::Ok();
}

}  // namespace

std::vector<uint8_t> EncodeSetup(const SetupMessage& m) {
  WireWriter out;
  EncodeHeader(out, MessageKind::kSetup);
  out.U8(static_cast<uint8_t>(m.link_layer));
  out.U8(m.mtu);
  out.U8(m.has_gid ? 1 : 0);
  out.U16(0);
  out.U32(static_cast<uint32_t>(m.qps.size()));
  out.U32(m.recv_slot_bytes);
  out.U32(m.recv_slots);
  for (const auto& qp : m.qps) {
    out.U16(qp.lid);
    out.U32(qp.qpn);
    out.U32(qp.psn);
    out.U32(qp.out_reads);
    const std::array<uint8_t, 16> gid = qp.gid.value_or(std::array<uint8_t, 16>{});
    for (uint8_t byte : gid) out.U8(byte);
  }
  out.U32(static_cast<uint32_t>(m.keys.size()));
  for (const auto& key : m.keys) {
    out.U64(key.id);
    out.U64(key.address);
    out.U64(key.length);
    out.U32(key.rkey);
    out.U32(static_cast<uint32_t>(key.access));
  }
  return out.bytes();
}

std::vector<uint8_t> EncodeVerdict(const Status& status) {
  WireWriter out;
  EncodeHeader(out, MessageKind::kVerdict);
  out.U8(static_cast<uint8_t>(status.code()));
  const std::string& text = status.message();
  out.String(std::string_view(text).substr(0, kMaxVerdictText));
  return out.bytes();
}

Result<PeerMessage> DecodePeerMessage(std::span<const uint8_t> bytes) {
  WireReader in(bytes);
  uint32_t magic = 0;
  uint16_t version = 0;
  uint8_t kind = 0;
  PeerMessage message;
  Status status = in.U32(magic);
  if (status.ok() && magic != kSetupMagic) status = Bad("bad magic (is the peer an xfer verbs endpoint?)");
  if (status.ok()) status = in.U16(version);
  if (status.ok() && version != kSetupVersion) {
    status = Bad(fmt::format("peer speaks version {}, we speak {}", version, kSetupVersion));
  }
  if (status.ok()) status = in.U8(kind);
  if (status.ok()) {
    if (kind == static_cast<uint8_t>(MessageKind::kSetup)) {
      message.kind = MessageKind::kSetup;
      status = DecodeSetupBody(in, message.setup);
    } else if (kind == static_cast<uint8_t>(MessageKind::kVerdict)) {
      message.kind = MessageKind::kVerdict;
      status = DecodeVerdictBody(in, message.verdict);
    } else {
      status = Bad(fmt::format("unknown message kind {}", kind));
    }
  }
  if (status.ok()) status = in.ExpectEnd();
  if (!status.ok()) {
    // WireReader's own errors ("message truncated") lack the context.
    if (status.message().rfind("verbs setup message", 0) != 0) {
      status = status.WithContext("verbs setup message");
    }
    return status;
  }
  return message;
}

}  // namespace xfer::transport::verbs
