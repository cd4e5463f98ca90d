// The handshake's view of the control connection: the authentication
// exchange that opens every connection, then messages that carry a MAC when
// the peers share a secret.
//
// With a secret on both sides the exchange is a mutual challenge-response:
//   1. the initiator sends a fresh nonce Ni;
//   2. the acceptor answers with a fresh nonce Na and
//      HMAC(K, "xfer/3 acceptor" | Ni | Na): it proves that it knows K
//      before the initiator says anything about itself;
//   3. every later message M of this handshake travels as
//      M | HMAC(K, "xfer/3 <label>" | Ni | Na | M), labelled "hello" from the
//      initiator and "reply" from the acceptor, so that the acceptor learns
//      the initiator knows K before it sends its regions, a message is
//      bound to this connection's nonces (a recorded handshake replayed
//      against a fresh Na fails), and neither side's message can be
//      reflected back as the other's.
// A side without a secret offers kNone; a side with one refuses a peer
// that offers kNone. Neither learns anything the other did not mean to
// send: the refusing side closes before any identity or region.
//
// What it does not do: encrypt, or protect the transport's own setup and
// data traffic after the handshake (README, "Security").
#ifndef XFER_CORE_AUTHENTICATED_CHANNEL_H_
#define XFER_CORE_AUTHENTICATED_CHANNEL_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/socket.h"
#include "core/handshake.h"
#include "core/shared_secret.h"
#include "xfer/status.h"

namespace xfer::core {

class AuthenticatedChannel {
 public:
  // The initiator's steps 1 and 2. `secret` may be null (no secret).
  // Errors: kPermissionDenied when the peer failed its proof, asks for a
  // secret this side lacks, or offers none while this side has one;
  // kProtocolError, kTimeout, kConnectionLost from the socket.
  static Result<AuthenticatedChannel> Initiate(Socket& control, const SharedSecret* secret,
                                               Deadline deadline);
  // The acceptor's steps 1 and 2: reads the offer, answers it. Errors as
  // Initiate; a refused initiator has been told why in the answer.
  static Result<AuthenticatedChannel> Answer(Socket& control, const SharedSecret* secret,
                                             Deadline deadline);

  bool authenticated() const { return secret_ != nullptr; }

  // Sends `message`, with its MAC under `label` when authenticated.
  Status Send(std::span<const uint8_t> message, std::string_view label, Deadline deadline);
  // Receives one message of at most `max_length` bytes, verified under
  // `label` when authenticated. Errors: kPermissionDenied for a MAC that
  // does not verify (wrong secret, replay, tampering); socket errors.
  Result<std::vector<uint8_t>> Receive(size_t max_length, std::string_view label,
                                       Deadline deadline);

 private:
  AuthenticatedChannel(Socket& control, const SharedSecret* secret, const Nonce& initiator,
                       const Nonce& acceptor)
      : control_(&control), secret_(secret), initiator_nonce_(initiator), acceptor_nonce_(acceptor) {}

  Mac Sign(std::string_view label, std::span<const uint8_t> message) const;

  Socket* control_;
  const SharedSecret* secret_;  // null: unauthenticated
  Nonce initiator_nonce_;
  Nonce acceptor_nonce_;
};

// The acceptor's proof of step 2; exposed for the tests that forge and
// replay handshakes.
Mac AcceptorProof(const SharedSecret& secret, const Nonce& initiator, const Nonce& acceptor);
// The MAC of a later message (step 3).
Mac MessageMac(const SharedSecret& secret, std::string_view label, const Nonce& initiator,
               const Nonce& acceptor, std::span<const uint8_t> message);

}  // namespace xfer::core

#endif  // XFER_CORE_AUTHENTICATED_CHANNEL_H_
