#include "core/handshake.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/wire.h"

namespace xfer::core {
namespace {

enum class MessageType : uint8_t { kHello = 1, kHelloReply = 2, kAuthOffer = 3, kAuthChallenge = 4 };

void PutHeader(WireWriter& w, MessageType type) {
  w.U32(kHandshakeMagic);
  w.U16(kHandshakeVersion);
  w.U8(static_cast<uint8_t>(type));
}

Status GetHeader(WireReader& r, MessageType expected) {
  uint32_t magic = 0;
  uint16_t version = 0;
  uint8_t type = 0;
  XFER_RETURN_IF_ERROR(r.U32(magic));
  if (magic != kHandshakeMagic) return ProtocolError("peer is not an xfer engine (bad magic)");
  XFER_RETURN_IF_ERROR(r.U16(version));
  if (version != kHandshakeVersion) {
    return ProtocolError(fmt::format("peer speaks handshake version {}, this build speaks {}",
                                     version, kHandshakeVersion));
  }
  XFER_RETURN_IF_ERROR(r.U8(type));
  if (type != static_cast<uint8_t>(expected)) return ProtocolError("unexpected handshake message");
  return Status::Ok();
}

void PutIdentity(WireWriter& w, const PeerIdentity& id) {
  w.String(id.name);
  w.U32(static_cast<uint32_t>(id.pid));
  w.String(id.host.boot_id);
  w.U64(id.host.net_namespace);
}

Status GetIdentity(WireReader& r, PeerIdentity& id) {
  uint32_t pid = 0;
  XFER_RETURN_IF_ERROR(r.String(id.name, kMaxNameLength));
  XFER_RETURN_IF_ERROR(r.U32(pid));
  id.pid = static_cast<int32_t>(pid);
  XFER_RETURN_IF_ERROR(r.String(id.host.boot_id, kMaxNameLength));
  return r.U64(id.host.net_namespace);
}

void PutRegions(WireWriter& w, const std::vector<RemoteRegion>& regions) {
  w.U32(static_cast<uint32_t>(regions.size()));
  for (const auto& region : regions) {
    w.U64(region.id);
    w.U64(region.address);
    w.U64(region.length);
    w.U32(static_cast<uint32_t>(region.access));
    w.U32(static_cast<uint32_t>(region.kind));
    w.U32(static_cast<uint32_t>(region.device));
  }
}

Status ValidateRegions(std::vector<RemoteRegion>& regions) {
  std::sort(regions.begin(), regions.end(),
            [](const RemoteRegion& a, const RemoteRegion& b) { return a.address < b.address; });
  for (size_t i = 0; i < regions.size(); ++i) {
    const auto& region = regions[i];
    if (region.length == 0 || region.address > UINT64_MAX - region.length) {
      return ProtocolError(fmt::format("peer region {} has an impossible range", region.id));
    }
    if (i > 0 && regions[i - 1].address + regions[i - 1].length > region.address) {
      return ProtocolError(fmt::format("peer regions {} and {} overlap", regions[i - 1].id,
                                       region.id));
    }
  }
  return Status::Ok();
}

// A region's memory kind and device: a known kind, and a device ordinal
// exactly for CUDA memory.
Status GetKind(uint32_t kind, int32_t device, RemoteRegion& region) {
  if (kind > static_cast<uint32_t>(MemoryKind::kCuda)) {
    return ProtocolError(fmt::format("peer region {} has unknown memory kind {}", region.id, kind));
  }
  region.kind = static_cast<MemoryKind>(kind);
  const bool cuda = region.kind == MemoryKind::kCuda;
  if (cuda ? device < 0 : device != -1) {
    return ProtocolError(fmt::format("peer region {} ({} memory) names device {}", region.id,
                                     MemoryKindName(region.kind), device));
  }
  region.device = device;
  return Status::Ok();
}

Status GetRegions(WireReader& r, std::vector<RemoteRegion>& regions) {
  uint32_t count = 0;
  XFER_RETURN_IF_ERROR(r.U32(count));
  if (count > kMaxRegions) return ProtocolError(fmt::format("peer announced {} regions", count));
  regions.resize(count);
  for (auto& region : regions) {
    uint32_t access = 0;
    uint32_t kind = 0;
    uint32_t device = 0;
    XFER_RETURN_IF_ERROR(r.U64(region.id));
    XFER_RETURN_IF_ERROR(r.U64(region.address));
    XFER_RETURN_IF_ERROR(r.U64(region.length));
    XFER_RETURN_IF_ERROR(r.U32(access));
    XFER_RETURN_IF_ERROR(r.U32(kind));
    XFER_RETURN_IF_ERROR(r.U32(device));
    if ((access & ~static_cast<uint32_t>(Access::kRemoteReadWrite)) != 0) {
      return ProtocolError("peer region has unknown access bits");
    }
    region.access = static_cast<Access>(access);
    XFER_RETURN_IF_ERROR(GetKind(kind, static_cast<int32_t>(device), region));
  }
  return ValidateRegions(regions);
}

Status GetAuthMode(WireReader& r, AuthMode& mode) {
  uint8_t raw = 0;
  XFER_RETURN_IF_ERROR(r.U8(raw));
  if (raw > static_cast<uint8_t>(AuthMode::kHmacSha256)) {
    return ProtocolError(fmt::format("peer offers unknown authentication mode {}", raw));
  }
  mode = static_cast<AuthMode>(raw);
  return Status::Ok();
}

Status GetStreams(WireReader& r, uint32_t& streams) {
  XFER_RETURN_IF_ERROR(r.U32(streams));
  if (streams == 0 || streams > 1024) {
    return ProtocolError(fmt::format("peer asked for {} streams", streams));
  }
  return Status::Ok();
}

// A rate in bytes/s on the wire: whole bytes, up to 2^53 (9 PB/s).
uint64_t RateOnWire(double bytes_per_sec) {
  return bytes_per_sec > 0 && bytes_per_sec < 9e15 ? static_cast<uint64_t>(bytes_per_sec) : 0;
}

void PutRailEnds(WireWriter& w, const std::vector<TransportRailEnds>& all) {
  w.U16(static_cast<uint16_t>(all.size()));
  for (const TransportRailEnds& ends : all) {
    w.String(ends.transport);
    w.U16(static_cast<uint16_t>(ends.ends.size()));
    for (const transport::RailCandidate& end : ends.ends) {
      w.String(end.name);
      w.String(end.network);
      w.U64(RateOnWire(end.bytes_per_sec));
    }
  }
}

Status GetRate(WireReader& r, double& rate) {
  uint64_t raw = 0;
  XFER_RETURN_IF_ERROR(r.U64(raw));
  if (raw > (uint64_t{1} << 53)) return ProtocolError("peer sent an impossible link rate");
  rate = static_cast<double>(raw);
  return Status::Ok();
}

Status GetRailEnds(WireReader& r, std::vector<TransportRailEnds>& all) {
  uint16_t transports = 0;
  XFER_RETURN_IF_ERROR(r.U16(transports));
  if (transports > kMaxTransports) return ProtocolError("peer offered rails on too many transports");
  all.resize(transports);
  for (TransportRailEnds& ends : all) {
    XFER_RETURN_IF_ERROR(r.String(ends.transport, kMaxNameLength));
    uint16_t count = 0;
    XFER_RETURN_IF_ERROR(r.U16(count));
    if (count > kMaxRailEnds) {
      return ProtocolError(fmt::format("peer offered {} rail ends (at most {})", count, kMaxRailEnds));
    }
    ends.ends.resize(count);
    for (transport::RailCandidate& end : ends.ends) {
      XFER_RETURN_IF_ERROR(r.String(end.name, kMaxNameLength));
      XFER_RETURN_IF_ERROR(r.String(end.network, kMaxNameLength));
      XFER_RETURN_IF_ERROR(GetRate(r, end.bytes_per_sec));
      if (end.name.empty()) return ProtocolError("peer offered a rail end without a name");
    }
  }
  return Status::Ok();
}

void PutRailPairs(WireWriter& w, const std::vector<RailPair>& rails) {
  w.U16(static_cast<uint16_t>(rails.size()));
  for (const RailPair& rail : rails) {
    w.String(rail.initiator);
    w.String(rail.acceptor);
    w.U64(RateOnWire(rail.bytes_per_sec));
  }
}

Status GetRailPairs(WireReader& r, std::vector<RailPair>& rails) {
  uint16_t count = 0;
  XFER_RETURN_IF_ERROR(r.U16(count));
  if (count > kMaxRails) {
    return ProtocolError(fmt::format("peer chose {} rails (at most {})", count, kMaxRails));
  }
  rails.resize(count);
  for (RailPair& rail : rails) {
    XFER_RETURN_IF_ERROR(r.String(rail.initiator, kMaxNameLength));
    XFER_RETURN_IF_ERROR(r.String(rail.acceptor, kMaxNameLength));
    XFER_RETURN_IF_ERROR(GetRate(r, rail.bytes_per_sec));
    if (rail.initiator.empty() || rail.acceptor.empty()) {
      return ProtocolError("peer chose a rail without its ends");
    }
  }
  return Status::Ok();
}

}  // namespace

std::vector<uint8_t> EncodeAuthOffer(const AuthOffer& offer) {
  WireWriter w;
  PutHeader(w, MessageType::kAuthOffer);
  w.U8(static_cast<uint8_t>(offer.mode));
  w.Bytes(offer.initiator_nonce);
  return w.bytes();
}

Result<AuthOffer> DecodeAuthOffer(std::span<const uint8_t> bytes) {
  WireReader r(bytes);
  AuthOffer offer;
  XFER_RETURN_IF_ERROR(GetHeader(r, MessageType::kAuthOffer));
  XFER_RETURN_IF_ERROR(GetAuthMode(r, offer.mode));
  XFER_RETURN_IF_ERROR(r.Bytes(offer.initiator_nonce));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return offer;
}

std::vector<uint8_t> EncodeAuthChallenge(const AuthChallenge& challenge) {
  WireWriter w;
  PutHeader(w, MessageType::kAuthChallenge);
  w.U8(static_cast<uint8_t>(challenge.mode));
  w.Bytes(challenge.acceptor_nonce);
  w.Bytes(challenge.acceptor_proof);
  return w.bytes();
}

Result<AuthChallenge> DecodeAuthChallenge(std::span<const uint8_t> bytes) {
  WireReader r(bytes);
  AuthChallenge challenge;
  XFER_RETURN_IF_ERROR(GetHeader(r, MessageType::kAuthChallenge));
  XFER_RETURN_IF_ERROR(GetAuthMode(r, challenge.mode));
  XFER_RETURN_IF_ERROR(r.Bytes(challenge.acceptor_nonce));
  XFER_RETURN_IF_ERROR(r.Bytes(challenge.acceptor_proof));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return challenge;
}

std::vector<uint8_t> EncodeHello(const Hello& hello) {
  WireWriter w;
  PutHeader(w, MessageType::kHello);
  PutIdentity(w, hello.identity);
  w.U16(static_cast<uint16_t>(hello.transports.size()));
  for (const auto& t : hello.transports) w.String(t);
  w.String(hello.forced_transport);
  w.U32(hello.streams);
  PutRegions(w, hello.regions);
  w.U32(hello.rails);
  PutRailEnds(w, hello.rail_ends);
  return w.bytes();
}

Result<Hello> DecodeHello(std::span<const uint8_t> bytes) {
  WireReader r(bytes);
  Hello hello;
  XFER_RETURN_IF_ERROR(GetHeader(r, MessageType::kHello));
  XFER_RETURN_IF_ERROR(GetIdentity(r, hello.identity));
  uint16_t count = 0;
  XFER_RETURN_IF_ERROR(r.U16(count));
  if (count > kMaxTransports) return ProtocolError("peer listed too many transports");
  hello.transports.resize(count);
  for (auto& t : hello.transports) XFER_RETURN_IF_ERROR(r.String(t, kMaxNameLength));
  XFER_RETURN_IF_ERROR(r.String(hello.forced_transport, kMaxNameLength));
  XFER_RETURN_IF_ERROR(GetStreams(r, hello.streams));
  XFER_RETURN_IF_ERROR(GetRegions(r, hello.regions));
  XFER_RETURN_IF_ERROR(r.U32(hello.rails));
  if (hello.rails > kMaxRails) {
    return ProtocolError(fmt::format("peer asked for {} rails (at most {})", hello.rails, kMaxRails));
  }
  XFER_RETURN_IF_ERROR(GetRailEnds(r, hello.rail_ends));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return hello;
}

std::vector<uint8_t> EncodeHelloReply(const HelloReply& reply) {
  WireWriter w;
  PutHeader(w, MessageType::kHelloReply);
  w.U8(static_cast<uint8_t>(reply.status));
  w.String(reply.message.substr(0, kMaxNameLength));
  w.String(reply.transport);
  w.U32(reply.streams);
  PutIdentity(w, reply.identity);
  PutRegions(w, reply.regions);
  PutRailPairs(w, reply.rails);
  return w.bytes();
}

Result<HelloReply> DecodeHelloReply(std::span<const uint8_t> bytes) {
  WireReader r(bytes);
  HelloReply reply;
  uint8_t status = 0;
  XFER_RETURN_IF_ERROR(GetHeader(r, MessageType::kHelloReply));
  XFER_RETURN_IF_ERROR(r.U8(status));
  if (status > static_cast<uint8_t>(StatusCode::kInternal)) {
    return ProtocolError("peer sent an unknown status code");
  }
  reply.status = static_cast<StatusCode>(status);
  XFER_RETURN_IF_ERROR(r.String(reply.message, kMaxNameLength));
  XFER_RETURN_IF_ERROR(r.String(reply.transport, kMaxNameLength));
  XFER_RETURN_IF_ERROR(GetStreams(r, reply.streams));
  XFER_RETURN_IF_ERROR(GetIdentity(r, reply.identity));
  XFER_RETURN_IF_ERROR(GetRegions(r, reply.regions));
  XFER_RETURN_IF_ERROR(GetRailPairs(r, reply.rails));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return reply;
}

}  // namespace xfer::core
