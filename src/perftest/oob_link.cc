#include "perftest/oob_link.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "bench/model/accept_peer.h"
#include "bench/model/interruption.h"
#include "perftest/wire_format.h"

namespace xfer::perftest {
namespace {

// Keepalive probes detect a peer host that vanished while we wait through
// its measurement: idle `timeout`, then 3 probes 1 s apart.
void EnableKeepalive(int fd, std::chrono::milliseconds timeout) {
  const int on = 1;
  const int idle = static_cast<int>(std::max<int64_t>(1, timeout.count() / 1000));
  const int interval = 1;
  const int probes = 3;
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof(probes));
}

Status Explain(const Status& status, std::string_view what, bool sending) {
  if (status.code() == StatusCode::kConnectionLost) {
    return ConnectionLost(fmt::format(
        "the peer closed the out-of-band connection during the {} exchange (it failed or was "
        "stopped; its own output says why)",
        what));
  }
  return status.WithContext(
      fmt::format("{} the perftest {} message", sending ? "sending" : "receiving", what));
}

}  // namespace

OobLink::OobLink(Socket socket, bool is_client, std::chrono::milliseconds timeout)
    : socket_(std::move(socket)), is_client_(is_client), timeout_(timeout) {
  EnableKeepalive(socket_.fd(), timeout_);
}

Result<OobLink> OobLink::Connect(const HostPort& server, std::chrono::milliseconds timeout,
                                 const std::atomic<int>& stop) {
  auto socket = bench::WaitUnlessInterrupted(
      Deadline::After(timeout), stop, [&server](Deadline slice) { return ConnectTcp(server, slice); });
  if (!socket.ok()) {
    return socket.status().WithContext(
        fmt::format("connecting to {} (out-of-band, -p)", FormatHostPort(server)));
  }
  return OobLink(std::move(*socket), true, timeout);
}

Result<OobLink> OobLink::Accept(Listener& listener, std::chrono::milliseconds accept_timeout,
                                std::chrono::milliseconds timeout, const std::atomic<int>& stop) {
  // A perftest client's first message is its version (P1); a connection
  // whose first 16 bytes are not one is turned away before the prologue
  // reads them, and the wait goes on.
  return bench::AcceptPeer(
      listener, Deadline::After(accept_timeout), stop, "a perftest client",
      "waiting for the client (--accept_timeout)", [timeout](Socket socket) -> Result<OobLink> {
        std::array<uint8_t, kVersionSize> greeting{};
        XFER_RETURN_IF_ERROR(
            socket.PeekAll(greeting.data(), greeting.size(), Deadline::After(timeout)));
        auto version = DecodeVersion(greeting);
        if (!version.ok()) return version.status();
        return OobLink(std::move(socket), false, timeout);
      });
}

Result<std::vector<uint8_t>> OobLink::Exchange(std::span<const uint8_t> out, size_t in_size,
                                               std::string_view what) {
  return ExchangeUntil(out, in_size, what, Deadline::After(timeout_));
}

Result<std::vector<uint8_t>> OobLink::ExchangeAfterPeerSetup(std::span<const uint8_t> out,
                                                             size_t in_size,
                                                             std::string_view what) {
  return ExchangeUntil(out, in_size, what,
                       Deadline::After(std::max(timeout_, kPeerSetupAllowance)));
}

Result<std::vector<uint8_t>> OobLink::ExchangeAfterPeerRun(std::span<const uint8_t> out,
                                                           size_t in_size, std::string_view what) {
  if (is_client_) {
    // The client's side of this exchange never waits through a run.
    return ExchangeUntil(out, in_size, what, Deadline::After(timeout_));
  }
  std::vector<uint8_t> in(in_size);
  if (Status s = socket_.RecvAll(in.data(), in.size(), Deadline::Never()); !s.ok()) {
    return Explain(s, what, false);
  }
  if (Status s = socket_.SendAll(out.data(), out.size(), Deadline::After(timeout_)); !s.ok()) {
    return Explain(s, what, true);
  }
  return in;
}

Result<std::vector<uint8_t>> OobLink::ExchangeUntil(std::span<const uint8_t> out, size_t in_size,
                                                    std::string_view what, Deadline deadline) {
  std::vector<uint8_t> in(in_size);
  auto send = [&] {
    Status s = socket_.SendAll(out.data(), out.size(), deadline);
    return s.ok() ? s : Explain(s, what, true);
  };
  const int waited_ms = deadline.remaining_ms();
  auto receive = [&] {
    Status s = socket_.RecvAll(in.data(), in.size(), deadline);
    if (s.code() == StatusCode::kTimeout) {
      return Timeout(fmt::format(
          "no perftest {} message from the peer within {} ms: either it is still setting up "
          "(registering large buffers can take longer: raise --timeout), or it runs another "
          "test or other flags (-q, -a, -b, -c, -s) and waits for a message this side never "
          "sends",
          what, waited_ms));
    }
    return s.ok() ? s : Explain(s, what, false);
  };
  if (is_client_) {
    XFER_RETURN_IF_ERROR(send());
    XFER_RETURN_IF_ERROR(receive());
  } else {
    XFER_RETURN_IF_ERROR(receive());
    XFER_RETURN_IF_ERROR(send());
  }
  return in;
}

std::optional<std::array<uint8_t, 4>> OobLink::LocalIpv4() const {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (getsockname(socket_.fd(), reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      address.ss_family != AF_INET) {
    return std::nullopt;
  }
  const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
  std::array<uint8_t, 4> bytes{};
  std::memcpy(bytes.data(), &v4->sin_addr.s_addr, 4);
  return bytes;
}

}  // namespace xfer::perftest
