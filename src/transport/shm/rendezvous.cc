#include "transport/shm/rendezvous.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "common/wire.h"
#include "transport/control_watch.h"

namespace xfer::transport::shm {
namespace {

constexpr std::string_view kNamePrefix = "xfer-shm-";
using Token = RendezvousToken;

// std::random_device reads getrandom(2) on Linux: unpredictable to another
// process, which is the point of both the name and the token.
uint64_t Random64() {
  std::random_device rd;
  return (uint64_t{rd()} << 32) | uint64_t{rd()};
}

bool ValidName(std::string_view name) {
  if (name.size() <= kNamePrefix.size() || name.substr(0, kNamePrefix.size()) != kNamePrefix) {
    return false;
  }
  for (char c : name.substr(kNamePrefix.size())) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == '-';
    if (!ok) return false;
  }
  return true;
}

Result<Socket> Listen(const EndpointSetup& setup) {
  const Token token{Random64(), Random64()};
  const std::string name = fmt::format("{}{}-{:016x}", kNamePrefix, getpid(), Random64());
  auto listener = ListenUnixAbstract(name);
  if (!listener.ok()) return listener.status();

  XFER_RETURN_IF_ERROR(setup.control->SendMessage(EncodeAnnouncement({token, name}), setup.deadline));

  auto socket = WhileControlOpen(*setup.control, setup.deadline, "its connect to @" + name,
                                 [&](Deadline slice) { return AcceptUnix(listener->get(), slice); });
  if (!socket.ok()) return socket.status();
  auto proof = socket->RecvMessage(kRendezvousTokenBytes, setup.deadline);
  if (!proof.ok()) return proof.status();
  auto presented = DecodeRendezvousToken(*proof);
  if (!presented.ok()) return presented.status();
  if (!(*presented == token)) {
    return ProtocolError("the process that connected to @" + name +
                         " did not present the token sent over the control channel");
  }
  return socket;
}

Result<Socket> Join(const EndpointSetup& setup) {
  auto body = setup.control->RecvMessage(kMaxAnnouncementBytes, setup.deadline);
  if (!body.ok()) return body.status();
  auto announcement = DecodeAnnouncement(*body);
  if (!announcement.ok()) return announcement.status();
  const std::string& name = announcement->name;
  const Token& token = announcement->token;

  auto socket = WhileControlOpen(*setup.control, setup.deadline, "its socket @" + name,
                                 [&](Deadline slice) { return ConnectUnixAbstract(name, slice); });
  if (!socket.ok()) return socket.status();
  XFER_RETURN_IF_ERROR(socket->SendMessage(EncodeRendezvousToken(token), setup.deadline));
  return socket;
}

}  // namespace

std::vector<uint8_t> EncodeRendezvousToken(const RendezvousToken& token) {
  WireWriter w;
  w.U64(token.hi);
  w.U64(token.lo);
  return w.bytes();
}

Result<RendezvousToken> DecodeRendezvousToken(std::span<const uint8_t> body) {
  WireReader r(body);
  RendezvousToken token;
  XFER_RETURN_IF_ERROR(r.U64(token.hi));
  XFER_RETURN_IF_ERROR(r.U64(token.lo));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  return token;
}

std::vector<uint8_t> EncodeAnnouncement(const RendezvousAnnouncement& announcement) {
  WireWriter w;
  w.U64(announcement.token.hi);
  w.U64(announcement.token.lo);
  w.String(announcement.name);
  return w.bytes();
}

Result<RendezvousAnnouncement> DecodeAnnouncement(std::span<const uint8_t> body) {
  WireReader r(body);
  RendezvousAnnouncement announcement;
  XFER_RETURN_IF_ERROR(r.U64(announcement.token.hi));
  XFER_RETURN_IF_ERROR(r.U64(announcement.token.lo));
  XFER_RETURN_IF_ERROR(r.String(announcement.name, kMaxRendezvousNameBytes));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  if (!ValidName(announcement.name)) return ProtocolError("malformed shm socket name from the peer");
  return announcement;
}

Result<Socket> Rendezvous(const EndpointSetup& setup) {
  if (setup.control == nullptr) return InvalidArgument("shm setup needs a control socket");
  auto socket = setup.initiator ? Listen(setup) : Join(setup);
  if (!socket.ok()) return socket.status().WithContext("rendezvous");
  return socket;
}

}  // namespace xfer::transport::shm
