// The engines' handshake on the control connection: whether the peers
// share a secret, who they are, which transport carries the connection, and
// each side's region table.
//
//   initiator -> acceptor : AuthOffer     (mode, initiator nonce)
//   acceptor  -> initiator: AuthChallenge (mode, acceptor nonce, acceptor
//                                          proof)
//   initiator -> acceptor : Hello      (identity, allowed transports, forced
//                                       transport, streams, regions)
//   acceptor  -> initiator: HelloReply (status, chosen transport, streams,
//                                       identity, regions)
//
// With a shared secret, the Hello and the HelloReply carry a MAC over both
// nonces (see authenticated_channel.h). Every message travels as a
// Socket::SendMessage frame; the decoders treat every byte as hostile.
#ifndef XFER_CORE_HANDSHAKE_H_
#define XFER_CORE_HANDSHAKE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/host_identity.h"
#include "core/rail_pairing.h"
#include "core/shared_secret.h"
#include "xfer/memory.h"
#include "xfer/status.h"

namespace xfer::core {

inline constexpr uint32_t kHandshakeMagic = 0x52454658;  // "XFER"
// 2: regions carry their memory kind; 3: the authentication exchange;
// 4: rails (the initiator's rail ends, the acceptor's pairs).
inline constexpr uint16_t kHandshakeVersion = 4;
inline constexpr size_t kMaxHandshakeBytes = 1 << 20;
inline constexpr size_t kMaxRegions = 4096;
inline constexpr size_t kMaxTransports = 16;
inline constexpr size_t kMaxNameLength = 256;
inline constexpr size_t kMaxRailEnds = 64;  // per transport, in a Hello
inline constexpr size_t kMaxRails = 16;     // pairs, in a HelloReply

// How a side authenticates: kNone when it has no secret.
enum class AuthMode : uint8_t { kNone = 0, kHmacSha256 = 1 };

struct AuthOffer {
  AuthMode mode = AuthMode::kNone;
  Nonce initiator_nonce{};
};

struct AuthChallenge {
  AuthMode mode = AuthMode::kNone;
  Nonce acceptor_nonce{};  // kNone: zero
  Mac acceptor_proof{};    // kNone: zero
};

struct PeerIdentity {
  std::string name;
  int32_t pid = 0;
  HostIdentity host;
};

// The rail ends the initiator offers over one transport.
struct TransportRailEnds {
  std::string transport;
  std::vector<transport::RailCandidate> ends;
};

struct Hello {
  PeerIdentity identity;
  std::vector<std::string> transports;  // allowed by the initiator
  std::string forced_transport;         // "" = let the acceptor choose
  uint32_t streams = 1;
  std::vector<RemoteRegion> regions;
  uint32_t rails = 0;                          // ConnectOptions::rails
  std::vector<TransportRailEnds> rail_ends;    // transports without ends left out
};

struct HelloReply {
  StatusCode status = StatusCode::kOk;  // non-OK: connection refused
  std::string message;                  // why, when refused
  std::string transport;
  uint32_t streams = 1;
  PeerIdentity identity;
  std::vector<RemoteRegion> regions;
  // The rails, rail 0 first (rail_pairing.h); empty: one, the transport's
  // own.
  std::vector<RailPair> rails;
};

std::vector<uint8_t> EncodeAuthOffer(const AuthOffer& offer);
std::vector<uint8_t> EncodeAuthChallenge(const AuthChallenge& challenge);
std::vector<uint8_t> EncodeHello(const Hello& hello);
std::vector<uint8_t> EncodeHelloReply(const HelloReply& reply);

// Errors: kProtocolError naming the first field that does not parse: bad
// magic or version, truncation, trailing bytes, an unknown AuthMode, more than the kMax* limits,
// zero streams, or a region table that is empty-length, wraps the address
// space or overlaps itself, or rail ends or pairs past their limits.
Result<AuthOffer> DecodeAuthOffer(std::span<const uint8_t> bytes);
Result<AuthChallenge> DecodeAuthChallenge(std::span<const uint8_t> bytes);
Result<Hello> DecodeHello(std::span<const uint8_t> bytes);
Result<HelloReply> DecodeHelloReply(std::span<const uint8_t> bytes);

}  // namespace xfer::core

#endif  // XFER_CORE_HANDSHAKE_H_
