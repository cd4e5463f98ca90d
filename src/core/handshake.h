// The engines' handshake on the control connection: who the peers are, which
// transport carries the connection, and each side's region table.
//
//   initiator -> acceptor : Hello      (identity, allowed transports, forced
//                                       transport, streams, regions)
//   acceptor  -> initiator: HelloReply (status, chosen transport, streams,
//                                       identity, regions)
//
// Both messages travel as Socket::SendMessage frames; the decoders treat
// every byte as hostile.
#ifndef XFER_CORE_HANDSHAKE_H_
#define XFER_CORE_HANDSHAKE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/host_identity.h"
#include "xfer/memory.h"
#include "xfer/status.h"

namespace xfer::core {

inline constexpr uint32_t kHandshakeMagic = 0x52454658;  // "XFER"
inline constexpr uint16_t kHandshakeVersion = 2;  // 2: regions carry their memory kind
inline constexpr size_t kMaxHandshakeBytes = 1 << 20;
inline constexpr size_t kMaxRegions = 4096;
inline constexpr size_t kMaxTransports = 16;
inline constexpr size_t kMaxNameLength = 256;

struct PeerIdentity {
  std::string name;
  int32_t pid = 0;
  HostIdentity host;
};

struct Hello {
  PeerIdentity identity;
  std::vector<std::string> transports;  // allowed by the initiator
  std::string forced_transport;         // "" = let the acceptor choose
  uint32_t streams = 1;
  std::vector<RemoteRegion> regions;
};

struct HelloReply {
  StatusCode status = StatusCode::kOk;  // non-OK: connection refused
  std::string message;                  // why, when refused
  std::string transport;
  uint32_t streams = 1;
  PeerIdentity identity;
  std::vector<RemoteRegion> regions;
};

std::vector<uint8_t> EncodeHello(const Hello& hello);
std::vector<uint8_t> EncodeHelloReply(const HelloReply& reply);

// Errors: kProtocolError naming the first field that does not parse: bad
// magic or version, truncation, trailing bytes, more than the kMax* limits,
// zero streams, or a region table that is empty-length, wraps the address
// space or overlaps itself.
Result<Hello> DecodeHello(std::span<const uint8_t> bytes);
Result<HelloReply> DecodeHelloReply(std::span<const uint8_t> bytes);

}  // namespace xfer::core

#endif  // XFER_CORE_HANDSHAKE_H_
