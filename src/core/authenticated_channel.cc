#include "core/authenticated_channel.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

namespace xfer::core {
namespace {

// AuthOffer and AuthChallenge are fixed-size; this bounds what a peer may
// make the acceptor buffer before it has proven anything.
constexpr size_t kMaxAuthBytes = 128;

std::span<const uint8_t> AsBytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

std::string Domain(std::string_view label) { return fmt::format("xfer/{} {}", kHandshakeVersion, label); }

}  // namespace

Mac AcceptorProof(const SharedSecret& secret, const Nonce& initiator, const Nonce& acceptor) {
  const std::string domain = Domain("acceptor");
  return secret.Sign({AsBytes(domain), initiator, acceptor});
}

Mac MessageMac(const SharedSecret& secret, std::string_view label, const Nonce& initiator,
               const Nonce& acceptor, std::span<const uint8_t> message) {
  const std::string domain = Domain(label);
  return secret.Sign({AsBytes(domain), initiator, acceptor, message});
}

Result<AuthenticatedChannel> AuthenticatedChannel::Initiate(Socket& control,
                                                            const SharedSecret* secret,
                                                            Deadline deadline) {
  auto nonce = FreshNonce();
  if (!nonce.ok()) return nonce.status();
  const AuthOffer offer{secret != nullptr ? AuthMode::kHmacSha256 : AuthMode::kNone, *nonce};
  XFER_RETURN_IF_ERROR(control.SendMessage(EncodeAuthOffer(offer), deadline));
  auto bytes = control.RecvMessage(kMaxAuthBytes, deadline);
  if (!bytes.ok()) return bytes.status();
  auto challenge = DecodeAuthChallenge(*bytes);
  if (!challenge.ok()) return challenge.status();
  if (secret == nullptr) {
    if (challenge->mode != AuthMode::kNone) {
      return PermissionDenied(
          "the peer requires a shared secret and this engine has none (EngineOptions::secret, "
          "--secret-file)");
    }
    return AuthenticatedChannel(control, nullptr, offer.initiator_nonce, challenge->acceptor_nonce);
  }
  if (challenge->mode == AuthMode::kNone) {
    return PermissionDenied("the peer has no shared secret; this engine talks only to peers that "
                            "prove they know its secret");
  }
  if (!SameMac(challenge->acceptor_proof,
               AcceptorProof(*secret, offer.initiator_nonce, challenge->acceptor_nonce))) {
    return PermissionDenied("the peer failed authentication: its proof does not match this "
                            "engine's secret");
  }
  return AuthenticatedChannel(control, secret, offer.initiator_nonce, challenge->acceptor_nonce);
}

Result<AuthenticatedChannel> AuthenticatedChannel::Answer(Socket& control,
                                                          const SharedSecret* secret,
                                                          Deadline deadline) {
  auto bytes = control.RecvMessage(kMaxAuthBytes, deadline);
  if (!bytes.ok()) return bytes.status();
  auto offer = DecodeAuthOffer(*bytes);
  if (!offer.ok()) return offer.status();
  AuthChallenge challenge;
  if (secret != nullptr) {
    auto nonce = FreshNonce();
    if (!nonce.ok()) return nonce.status();
    challenge.mode = AuthMode::kHmacSha256;
    challenge.acceptor_nonce = *nonce;
    challenge.acceptor_proof = AcceptorProof(*secret, offer->initiator_nonce, *nonce);
  }
  // The answer goes out even to a peer about to be refused, so that it can
  // say why; the proof reveals nothing about the secret.
  XFER_RETURN_IF_ERROR(control.SendMessage(EncodeAuthChallenge(challenge), deadline));
  if (secret != nullptr && offer->mode == AuthMode::kNone) {
    return PermissionDenied("the peer offered no shared secret");
  }
  if (secret == nullptr && offer->mode != AuthMode::kNone) {
    return PermissionDenied("the peer wants to authenticate and this engine has no shared secret");
  }
  return AuthenticatedChannel(control, secret, offer->initiator_nonce, challenge.acceptor_nonce);
}

Mac AuthenticatedChannel::Sign(std::string_view label, std::span<const uint8_t> message) const {
  return MessageMac(*secret_, label, initiator_nonce_, acceptor_nonce_, message);
}

Status AuthenticatedChannel::Send(std::span<const uint8_t> message, std::string_view label,
                                  Deadline deadline) {
  if (secret_ == nullptr) return control_->SendMessage(message, deadline);
  std::vector<uint8_t> framed(message.begin(), message.end());
  const Mac mac = Sign(label, message);
  framed.insert(framed.end(), mac.begin(), mac.end());
  return control_->SendMessage(framed, deadline);
}

Result<std::vector<uint8_t>> AuthenticatedChannel::Receive(size_t max_length,
                                                           std::string_view label,
                                                           Deadline deadline) {
  if (secret_ == nullptr) return control_->RecvMessage(max_length, deadline);
  auto framed = control_->RecvMessage(max_length + kMacBytes, deadline);
  if (!framed.ok()) return framed.status();
  if (framed->size() < kMacBytes) {
    return ProtocolError(fmt::format("the peer's {} is shorter than its MAC", label));
  }
  const size_t length = framed->size() - kMacBytes;
  Mac mac{};
  std::copy_n(framed->begin() + static_cast<std::ptrdiff_t>(length), kMacBytes, mac.begin());
  framed->resize(length);
  if (!SameMac(mac, Sign(label, *framed))) {
    return PermissionDenied(fmt::format(
        "the peer's {} does not carry a valid MAC (a wrong secret, a replayed handshake, or "
        "bytes changed on the way)",
        label));
  }
  return framed;
}

}  // namespace xfer::core
