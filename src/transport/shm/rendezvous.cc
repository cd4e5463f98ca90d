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
// sun_path holds 108 bytes, one of them the abstract namespace's leading NUL.
constexpr size_t kMaxNameBytes = 100;
// Two u64 token words plus the u16-prefixed name.
constexpr size_t kMaxAnnouncementBytes = 16 + 2 + kMaxNameBytes;
constexpr size_t kTokenMessageBytes = 16;

struct Token {
  uint64_t hi = 0;
  uint64_t lo = 0;
  bool operator==(const Token&) const = default;
};

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

std::vector<uint8_t> EncodeToken(const Token& token) {
  WireWriter w;
  w.U64(token.hi);
  w.U64(token.lo);
  return w.bytes();
}

Status DecodeToken(std::span<const uint8_t> body, Token& token) {
  WireReader r(body);
  XFER_RETURN_IF_ERROR(r.U64(token.hi));
  XFER_RETURN_IF_ERROR(r.U64(token.lo));
  return r.ExpectEnd();
}

Result<Socket> Listen(const EndpointSetup& setup) {
  const Token token{Random64(), Random64()};
  const std::string name = fmt::format("{}{}-{:016x}", kNamePrefix, getpid(), Random64());
  auto listener = ListenUnixAbstract(name);
  if (!listener.ok()) return listener.status();

  WireWriter announcement;
  announcement.U64(token.hi);
  announcement.U64(token.lo);
  announcement.String(name);
  XFER_RETURN_IF_ERROR(setup.control->SendMessage(announcement.bytes(), setup.deadline));

  auto socket = WhileControlOpen(*setup.control, setup.deadline, "its connect to @" + name,
                                 [&](Deadline slice) { return AcceptUnix(listener->get(), slice); });
  if (!socket.ok()) return socket.status();
  auto proof = socket->RecvMessage(kTokenMessageBytes, setup.deadline);
  if (!proof.ok()) return proof.status();
  Token presented;
  XFER_RETURN_IF_ERROR(DecodeToken(*proof, presented));
  if (!(presented == token)) {
    return ProtocolError("the process that connected to @" + name +
                         " did not present the token sent over the control channel");
  }
  return socket;
}

Result<Socket> Join(const EndpointSetup& setup) {
  auto body = setup.control->RecvMessage(kMaxAnnouncementBytes, setup.deadline);
  if (!body.ok()) return body.status();
  WireReader r(*body);
  Token token;
  std::string name;
  XFER_RETURN_IF_ERROR(r.U64(token.hi));
  XFER_RETURN_IF_ERROR(r.U64(token.lo));
  XFER_RETURN_IF_ERROR(r.String(name, kMaxNameBytes));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  if (!ValidName(name)) return ProtocolError("malformed shm socket name from the peer");

  auto socket = WhileControlOpen(*setup.control, setup.deadline, "its socket @" + name,
                                 [&](Deadline slice) { return ConnectUnixAbstract(name, slice); });
  if (!socket.ok()) return socket.status();
  XFER_RETURN_IF_ERROR(socket->SendMessage(EncodeToken(token), setup.deadline));
  return socket;
}

}  // namespace

Result<Socket> Rendezvous(const EndpointSetup& setup) {
  if (setup.control == nullptr) return InvalidArgument("shm setup needs a control socket");
  auto socket = setup.initiator ? Listen(setup) : Join(setup);
  if (!socket.ok()) return socket.status().WithContext("rendezvous");
  return socket;
}

}  // namespace xfer::transport::shm
