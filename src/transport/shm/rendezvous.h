// Connects the two halves of an shm endpoint with a private Unix stream
// socket, bootstrapped over the engines' control channel.
#ifndef XFER_TRANSPORT_SHM_RENDEZVOUS_H_
#define XFER_TRANSPORT_SHM_RENDEZVOUS_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/socket.h"
#include "transport/transport.h"
#include "xfer/status.h"

namespace xfer::transport::shm {

// Runs on both sides of a connection at the same time; `setup.initiator`
// picks the role. The initiator listens on a fresh random abstract Unix name
// and announces the name plus a random token on `setup.control`; the target
// connects and echoes the token as its first message. The abstract namespace
// has no permissions, so the token is what keeps a third process that
// guesses the name from being handed this process's memory descriptors.
//
// Returns the connected socket, owned by the caller. The control socket is
// left open and idle. Every wait is bounded by `setup.deadline`.
// Errors: kTimeout, kConnectionLost, kProtocolError (malformed announcement,
// wrong token), kIoError.
Result<Socket> Rendezvous(const EndpointSetup& setup);

// The rendezvous' two messages as pure functions (little-endian,
// common/wire.h), so that their decoders can be tested and fuzzed alone.
struct RendezvousToken {
  uint64_t hi = 0;
  uint64_t lo = 0;
  bool operator==(const RendezvousToken&) const = default;
};

// The initiator's announcement on the control socket: u64 hi, u64 lo, then
// the u16-prefixed abstract socket name.
struct RendezvousAnnouncement {
  RendezvousToken token;
  std::string name;
};

inline constexpr size_t kRendezvousTokenBytes = 16;
// sun_path holds 108 bytes, one of them the abstract namespace's leading NUL.
inline constexpr size_t kMaxRendezvousNameBytes = 100;
inline constexpr size_t kMaxAnnouncementBytes = kRendezvousTokenBytes + 2 + kMaxRendezvousNameBytes;

std::vector<uint8_t> EncodeRendezvousToken(const RendezvousToken& token);
// Errors: kProtocolError (truncated, trailing bytes).
Result<RendezvousToken> DecodeRendezvousToken(std::span<const uint8_t> body);

std::vector<uint8_t> EncodeAnnouncement(const RendezvousAnnouncement& announcement);
// Errors: kProtocolError (truncated, trailing bytes, a name that is not
// "xfer-shm-" followed by lower-case hex digits and dashes).
Result<RendezvousAnnouncement> DecodeAnnouncement(std::span<const uint8_t> body);

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_RENDEZVOUS_H_
