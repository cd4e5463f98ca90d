#include "transport/tcp/stream_setup.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <random>
#include <utility>

#include "common/wire.h"
#include "transport/control_watch.h"

namespace xfer::transport::tcp {
namespace {

constexpr uint32_t kSetupMagic = 0x50435458;  // "XTCP"
constexpr uint16_t kSetupVersion = 1;
constexpr size_t kSetupMessageSize =
    20;  // u32 magic, u16 version, u16 port, u32 streams, u64 token
constexpr uint32_t kHelloMagic = 0x4c484358;  // "XCHL"
constexpr size_t kHelloSize = 16;             // u32 magic, u32 index, u64 token

struct SetupMessage {
  uint16_t port = 0;
  uint32_t streams = 0;
  uint64_t token = 0;
};

std::vector<uint8_t> EncodeSetup(const SetupMessage& m) {
  WireWriter out;
  out.U32(kSetupMagic);
  out.U16(kSetupVersion);
  out.U16(m.port);
  out.U32(m.streams);
  out.U64(m.token);
  return out.bytes();
}

Result<SetupMessage> DecodeSetup(const std::vector<uint8_t>& bytes) {
  WireReader in(bytes);
  uint32_t magic = 0;
  uint16_t version = 0;
  SetupMessage m;
  Status status = in.U32(magic);
  if (status.ok() && magic != kSetupMagic) status = ProtocolError("bad magic");
  if (status.ok()) status = in.U16(version);
  if (status.ok() && version != kSetupVersion) {
    status =
        ProtocolError(fmt::format("peer speaks version {}, we speak {}", version, kSetupVersion));
  }
  if (status.ok()) status = in.U16(m.port);
  if (status.ok()) status = in.U32(m.streams);
  if (status.ok()) status = in.U64(m.token);
  if (status.ok()) status = in.ExpectEnd();
  if (status.ok() && m.port == 0) status = ProtocolError("peer announced port 0");
  if (!status.ok()) return status.WithContext("tcp setup: stream-setup message");
  return m;
}

uint64_t RandomToken() {
  std::random_device device;
  return (uint64_t{device()} << 32) ^ device();
}

Status SendHello(Socket& socket, uint32_t index, uint64_t token, Deadline deadline) {
  WireWriter hello;
  hello.U32(kHelloMagic);
  hello.U32(index);
  hello.U64(token);
  return socket.SendAll(hello.bytes().data(), hello.bytes().size(), deadline);
}

// Reads one hello and returns the stream index it claims, after checking it
// against our token, the stream count and the indices already taken.
Result<uint32_t> RecvHello(Socket& socket, uint64_t token, const std::vector<Socket>& taken,
                           Deadline deadline) {
  std::array<uint8_t, kHelloSize> bytes{};
  XFER_RETURN_IF_ERROR(socket.RecvAll(bytes.data(), bytes.size(), deadline));
  WireReader hello(bytes);
  uint32_t magic = 0;
  uint32_t index = 0;
  uint64_t presented = 0;
  XFER_RETURN_IF_ERROR(hello.U32(magic));
  XFER_RETURN_IF_ERROR(hello.U32(index));
  XFER_RETURN_IF_ERROR(hello.U64(presented));
  if (magic != kHelloMagic) return ProtocolError("tcp setup: bad hello magic");
  if (presented != token) {
    return ProtocolError("tcp setup: a data connection presented the wrong token");
  }
  if (index >= taken.size()) {
    return ProtocolError(
        fmt::format("tcp setup: hello names stream {} of {}", index, taken.size()));
  }
  if (taken[index].valid()) {
    return ProtocolError(fmt::format("tcp setup: stream {} connected twice", index));
  }
  return index;
}

Result<std::vector<Socket>> AcceptStreams(const Socket& control, Listener& listener,
                                          uint32_t streams, uint64_t token, Deadline deadline) {
  std::vector<Socket> incoming(streams);
  for (uint32_t accepted = 0; accepted < streams; ++accepted) {
    auto socket = WhileControlOpen(control, deadline, "its data streams",
                                   [&](Deadline slice) { return listener.Accept(slice); });
    if (!socket.ok()) return socket.status().WithContext("tcp setup: accept");
    auto index = RecvHello(*socket, token, incoming, deadline);
    if (!index.ok()) return index.status();
    incoming[*index] = std::move(*socket);
  }
  return incoming;
}

Status Tune(Socket& socket, const StreamOptions& options) {
  XFER_RETURN_IF_ERROR(socket.SetNoDelay());
  if (options.socket_buffer_bytes > 0) {
    XFER_RETURN_IF_ERROR(socket.SetBufferSizes(options.socket_buffer_bytes));
  }
  return Status::Ok();
}

Result<SetupMessage> ExchangeSetup(Socket& control, const SetupMessage& mine, Deadline deadline) {
  XFER_RETURN_IF_ERROR(control.SendMessage(EncodeSetup(mine), deadline).WithContext("tcp setup"));
  auto reply = control.RecvMessage(kSetupMessageSize, deadline);
  if (!reply.ok()) return reply.status().WithContext("tcp setup");
  auto peer = DecodeSetup(*reply);
  if (!peer.ok()) return peer.status();
  if (peer->streams != mine.streams) {
    return ProtocolError(
        fmt::format("tcp setup: peer wants {} streams, we want {}", peer->streams, mine.streams));
  }
  return peer;
}

}  // namespace

std::string ChooseBindHost(const Socket& control, const std::string& peer_host) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  char text[INET6_ADDRSTRLEN] = {};
  if (getsockname(control.fd(), reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    if (addr.ss_family == AF_INET) {
      auto* in4 = reinterpret_cast<sockaddr_in*>(&addr);
      if (inet_ntop(AF_INET, &in4->sin_addr, text, sizeof(text)) != nullptr) return text;
    } else if (addr.ss_family == AF_INET6) {
      auto* in6 = reinterpret_cast<sockaddr_in6*>(&addr);
      if (inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text)) != nullptr) return text;
    }
  }
  bool v6 = peer_host.find(':') != std::string::npos;
  if (peer_host == "::1") return "::1";
  if (peer_host.rfind("127.", 0) == 0) return "127.0.0.1";
  return v6 ? "::" : "0.0.0.0";
}

Result<StreamSockets> EstablishStreams(const EndpointSetup& setup, const StreamOptions& options) {
  if (setup.control == nullptr || !setup.control->valid()) {
    return InvalidArgument("tcp setup: no control socket");
  }
  if (setup.streams == 0 || setup.streams > kMaxStreams) {
    return InvalidArgument(
        fmt::format("tcp setup: {} streams (1..{})", setup.streams, kMaxStreams));
  }
  // A backlog of `streams` lets the peer complete every connect before we
  // start accepting: both sides connect first, then accept.
  // A rail's ends are addresses: ours to listen on, the peer's to reach.
  const std::string& peer_host = setup.remote_rail.empty() ? setup.peer_host : setup.remote_rail;
  const std::string bind_host = setup.local_rail.empty()
                                    ? ChooseBindHost(*setup.control, setup.peer_host)
                                    : setup.local_rail;
  auto listener = Listener::Bind({bind_host, 0},
                                 static_cast<int>(setup.streams) + 1);
  if (!listener.ok()) return listener.status().WithContext("tcp setup: listen");
  SetupMessage mine{listener->local_address().port, setup.streams, RandomToken()};
  auto peer = ExchangeSetup(*setup.control, mine, setup.deadline);
  if (!peer.ok()) return peer.status();

  StreamSockets sockets;
  for (uint32_t i = 0; i < setup.streams; ++i) {
    // Slices of a second: a connect still in flight after one has lost its
    // SYN and would be retransmitted anyway, while a dead peer's refused
    // listener is noticed within the second.
    auto socket = WhileControlOpen(
        *setup.control, setup.deadline, "its data-stream listener",
        [&](Deadline slice) { return ConnectTcp({peer_host, peer->port}, slice); },
        std::chrono::seconds(1));
    if (!socket.ok()) return socket.status().WithContext("tcp setup: connect");
    XFER_RETURN_IF_ERROR(SendHello(*socket, i, peer->token, setup.deadline));
    sockets.outgoing.push_back(std::move(*socket));
  }
  auto incoming = AcceptStreams(*setup.control, *listener, setup.streams, mine.token, setup.deadline);
  if (!incoming.ok()) return incoming.status();
  sockets.incoming = std::move(*incoming);
  listener->Close();
  for (auto& socket : sockets.outgoing) XFER_RETURN_IF_ERROR(Tune(socket, options));
  for (auto& socket : sockets.incoming) XFER_RETURN_IF_ERROR(Tune(socket, options));
  return sockets;
}

}  // namespace xfer::transport::tcp
