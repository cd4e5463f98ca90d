#include "common/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <iterator>
#include <cstring>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "common/kernel_channel.h"

namespace xfer {
namespace {


// Bounds one message on control and OOB channels: large enough for a region
// table, small enough that a hostile length cannot make us allocate much.
constexpr size_t kMaxFdsPerMessage = 64;

Status ErrnoStatus(std::string_view what, int err) {
  if (err == ECONNRESET || err == EPIPE || err == ENOTCONN) {
    return ConnectionLost(ErrnoMessage(what, err));
  }
  return IoError(ErrnoMessage(what, err));
}

void PutLe32(uint8_t* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(v >> (8 * i));
}

uint32_t GetLe32(const uint8_t* in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(in[i]) << (8 * i);
  return v;
}

}  // namespace

std::string ErrnoMessage(std::string_view what, int err) {
  return std::string(what) + ": " + std::strerror(err);
}

Result<HostPort> ParseHostPort(std::string_view text) {
  HostPort hp;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return InvalidArgument("address '" + std::string(text) + "' is not [host]:port");
    }
    hp.host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0) {
      return InvalidArgument("address '" + std::string(text) + "' is not host:port");
    }
    hp.host = std::string(text.substr(0, colon));
    port_text = text.substr(colon + 1);
    if (hp.host.find(':') != std::string::npos) {
      return InvalidArgument("address '" + std::string(text) +
                             "' is ambiguous: an IPv6 host goes in brackets, as in [" + hp.host +
                             "]:" + std::string(port_text));
    }
  }
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port > 65535) {
    return InvalidArgument("port '" + std::string(port_text) + "' in '" + std::string(text) +
                           "' is not a number in 0..65535");
  }
  hp.port = static_cast<uint16_t>(port);
  return hp;
}

std::string FormatHostPort(const HostPort& hp) {
  if (hp.host.find(':') != std::string::npos) {
    return "[" + hp.host + "]:" + std::to_string(hp.port);
  }
  return hp.host + ":" + std::to_string(hp.port);
}

void Socket::Shutdown() {
  if (fd_.valid()) ::shutdown(fd_.get(), SHUT_RDWR);
}

void Socket::AbortOnClose() {
  if (!fd_.valid()) return;
  const linger abort{1, 0};
  (void)::setsockopt(fd_.get(), SOL_SOCKET, SO_LINGER, &abort, sizeof(abort));
}

Status Socket::WaitFor(short events, Deadline deadline) {
  pollfd pfd{fd_.get(), events, 0};
  for (;;) {
    int rc = ::poll(&pfd, 1, deadline.remaining_ms());
    if (rc > 0) return Status::Ok();
    if (rc == 0) {
      if (deadline.expired()) return Timeout("peer did not respond within the timeout");
      continue;
    }
    if (errno != EINTR) return ErrnoStatus("poll", errno);
  }
}

bool Socket::PeerClosed() const {
  pollfd pfd{fd_.get(), POLLRDHUP, 0};
  return ::poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

Status Socket::SendAll(const void* data, size_t length, Deadline deadline) {
  iovec iov{const_cast<void*>(data), length};
  return SendAllv(std::span<iovec>(&iov, 1), deadline);
}

Status Socket::SendAllv(std::span<iovec> iov, Deadline deadline) {
  if (!fd_.valid()) return ConnectionLost("socket is closed");
  size_t first = 0;
  while (first < iov.size()) {
    if (iov[first].iov_len == 0) {
      ++first;
      continue;
    }
    msghdr msg{};
    msg.msg_iov = &iov[first];
    msg.msg_iovlen = std::min<size_t>(iov.size() - first, IOV_MAX);
    SendingThroughKernel();
    ssize_t n = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        XFER_RETURN_IF_ERROR(WaitFor(POLLOUT, deadline));
        continue;
      }
      return ErrnoStatus("send", errno);
    }
    auto left = static_cast<size_t>(n);
    while (first < iov.size() && left >= iov[first].iov_len) {
      left -= iov[first].iov_len;
      ++first;
    }
    if (left > 0) {
      iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + left;
      iov[first].iov_len -= left;
    }
  }
  return Status::Ok();
}

Status Socket::RecvAll(void* data, size_t length, Deadline deadline) {
  if (!fd_.valid()) return ConnectionLost("socket is closed");
  auto* out = static_cast<char*>(data);
  size_t got = 0;
  while (got < length) {
    ssize_t n = ::recv(fd_.get(), out + got, length - got, MSG_DONTWAIT);
    if (n > 0) {
      ReceivedThroughKernel();
      got += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) return ConnectionLost("peer closed the connection");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      XFER_RETURN_IF_ERROR(WaitFor(POLLIN, deadline));
      continue;
    }
    return ErrnoStatus("recv", errno);
  }
  return Status::Ok();
}

Status Socket::PeekAll(void* data, size_t length, Deadline deadline) {
  if (!fd_.valid()) return ConnectionLost("socket is closed");
  for (;;) {
    const ssize_t n = ::recv(fd_.get(), data, length, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0) ReceivedThroughKernel();
    if (n == static_cast<ssize_t>(length)) return Status::Ok();
    if (n == 0) return ConnectionLost("peer closed the connection");
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return ErrnoStatus("recv", errno);
    if (n < 0) {
      XFER_RETURN_IF_ERROR(WaitFor(POLLIN, deadline));
      continue;
    }
    // Part of it is here: poll would not wait for the rest.
    if (deadline.expired()) return Timeout("the peer's first message did not arrive in full");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

Result<size_t> Socket::RecvSome(void* data, size_t length) {
  if (!fd_.valid()) return ConnectionLost("socket is closed");
  for (;;) {
    ssize_t n = ::recv(fd_.get(), data, length, MSG_DONTWAIT);
    if (n > 0) {
      ReceivedThroughKernel();
      return static_cast<size_t>(n);
    }
    if (n == 0) return ConnectionLost("peer closed the connection");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return size_t{0};
    return ErrnoStatus("recv", errno);
  }
}

Status Socket::SendMessage(std::span<const uint8_t> body, Deadline deadline) {
  if (body.size() > UINT32_MAX) return InvalidArgument("message too long");
  uint8_t header[4];
  PutLe32(header, static_cast<uint32_t>(body.size()));
  iovec iov[2] = {{header, sizeof(header)},
                  {const_cast<uint8_t*>(body.data()), body.size()}};
  return SendAllv(iov, deadline);
}

Result<std::vector<uint8_t>> Socket::RecvMessage(size_t max_length, Deadline deadline) {
  uint8_t header[4];
  XFER_RETURN_IF_ERROR(RecvAll(header, sizeof(header), deadline));
  const uint32_t length = GetLe32(header);
  if (length > max_length) {
    // A length no xfer peer sends: most often another protocol on the port
    // ("HTTP" read as a length is 1347703880); say so, with its bytes.
    const bool text = std::all_of(std::begin(header), std::end(header), [](uint8_t c) {
      return c >= 0x20 && c < 0x7f;
    });
    return ProtocolError(fmt::format(
        "the peer is not an xfer peer (or not this version): its message header announces {} "
        "bytes, above the {} allowed here{}",
        length, max_length,
        text ? fmt::format("; its first bytes read '{}' as text",
                           std::string(std::begin(header), std::end(header)))
             : std::string()));
  }
  std::vector<uint8_t> body(length);
  XFER_RETURN_IF_ERROR(RecvAll(body.data(), body.size(), deadline));
  return body;
}

Status Socket::SendFds(std::span<const int> fds, std::span<const uint8_t> body, Deadline deadline) {
  if (fds.size() > kMaxFdsPerMessage) return InvalidArgument("too many descriptors in one message");
  if (body.empty()) return InvalidArgument("SendFds needs a non-empty body");
  std::vector<char> control(CMSG_SPACE(sizeof(int) * std::max<size_t>(fds.size(), 1)));
  iovec iov{const_cast<uint8_t*>(body.data()), body.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (!fds.empty()) {
    msg.msg_control = control.data();
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(cmsg), fds.data(), sizeof(int) * fds.size());
  }
  for (;;) {
    SendingThroughKernel();
    ssize_t n = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n >= 0) {
      // Descriptors travel with the first byte; the rest is a plain send.
      auto sent = static_cast<size_t>(n);
      return SendAll(body.data() + sent, body.size() - sent, deadline);
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return ErrnoStatus("sendmsg", errno);
    XFER_RETURN_IF_ERROR(WaitFor(POLLOUT, deadline));
  }
}

Result<std::vector<UniqueFd>> Socket::RecvFds(size_t max_fds, std::vector<uint8_t>& body,
                                              size_t max_body, Deadline deadline) {
  // The sender's body has a fixed, caller-agreed size: `body.size()` on entry
  // must equal what the peer sends, bounded by max_body.
  if (body.empty() || body.size() > max_body) return InvalidArgument("bad RecvFds body size");
  max_fds = std::min(max_fds, kMaxFdsPerMessage);
  std::vector<char> control(CMSG_SPACE(sizeof(int) * kMaxFdsPerMessage));
  iovec iov{body.data(), body.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  ssize_t n;
  for (;;) {
    n = ::recvmsg(fd_.get(), &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n > 0) ReceivedThroughKernel();
    if (n >= 0) break;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return ErrnoStatus("recvmsg", errno);
    XFER_RETURN_IF_ERROR(WaitFor(POLLIN, deadline));
  }
  if (n == 0) return ConnectionLost("peer closed the connection");
  std::vector<UniqueFd> fds;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
      fds.emplace_back(fd);  // owned now, so closed on every error path below
    }
  }
  if ((msg.msg_flags & MSG_CTRUNC) != 0) return ProtocolError("peer sent too many descriptors");
  if (fds.size() > max_fds) return ProtocolError("peer sent more descriptors than announced");
  auto got = static_cast<size_t>(n);
  if (got < body.size()) {
    XFER_RETURN_IF_ERROR(RecvAll(body.data() + got, body.size() - got, deadline));
  }
  return fds;
}

namespace {

// The numeric host of an address getpeername/getsockname filled.
std::string NumericHost(const sockaddr_storage& addr, socklen_t len) {
  char host[NI_MAXHOST];
  if (addr.ss_family != AF_INET && addr.ss_family != AF_INET6) return {};
  if (::getnameinfo(reinterpret_cast<const sockaddr*>(&addr), len, host, sizeof(host), nullptr,
                    0, NI_NUMERICHOST) != 0) {
    return {};
  }
  return host;
}

}  // namespace

std::string Socket::LocalHost() const {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) return {};
  return NumericHost(addr, len);
}

std::string Socket::PeerHost() const {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (::getpeername(fd_.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) return {};
  return NumericHost(addr, len);
}

Status Socket::SetNoDelay() {
  int one = 1;
  if (::setsockopt(fd_.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0) {
    return ErrnoStatus("setsockopt(TCP_NODELAY)", errno);
  }
  return Status::Ok();
}

Status Socket::SetBufferSizes(int bytes) {
  if (::setsockopt(fd_.get(), SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes)) != 0 ||
      ::setsockopt(fd_.get(), SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes)) != 0) {
    return ErrnoStatus("setsockopt(SO_SNDBUF/SO_RCVBUF)", errno);
  }
  return Status::Ok();
}

namespace {

Result<addrinfo*> Resolve(const HostPort& where, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  addrinfo* result = nullptr;
  std::string port = std::to_string(where.port);
  int rc = ::getaddrinfo(where.host.empty() ? nullptr : where.host.c_str(), port.c_str(), &hints,
                         &result);
  if (rc != 0) {
    return InvalidArgument("cannot resolve '" + where.host + "': " + ::gai_strerror(rc));
  }
  return result;
}

// One non-blocking connect attempt bounded by the deadline.
Result<Socket> ConnectOnce(const addrinfo* ai, Deadline deadline) {
  UniqueFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                       ai->ai_protocol));
  if (!fd.valid()) return ErrnoStatus("socket", errno);
  if (::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0) {
    if (errno != EINPROGRESS) return ErrnoStatus("connect", errno);
    pollfd pfd{fd.get(), POLLOUT, 0};
    int rc = ::poll(&pfd, 1, deadline.remaining_ms());
    if (rc == 0) return Timeout("connect timed out");
    if (rc < 0) return ErrnoStatus("poll", errno);
    int err = 0;
    socklen_t len = sizeof(err);
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return ErrnoStatus("connect", err);
  }
  return Socket(std::move(fd));
}

}  // namespace

Result<Socket> ConnectTcp(const HostPort& where, Deadline deadline, OnRefused on_refused) {
  auto resolved = Resolve(where, false);
  if (!resolved.ok()) return resolved.status();
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(*resolved, &::freeaddrinfo);
  Status last = Timeout("could not connect to " + FormatHostPort(where) + " within the timeout");
  do {
    for (const addrinfo* ai = list.get(); ai != nullptr; ai = ai->ai_next) {
      auto sock = ConnectOnce(ai, deadline);
      if (sock.ok()) return sock;
      last = sock.status().WithContext("connect to " + FormatHostPort(where));
    }
    // A refused connection usually means the server is not listening yet.
    if (last.code() != StatusCode::kIoError) break;
    if (on_refused == OnRefused::kFail) {
      return ConnectionLost(fmt::format(
          "{} (is the peer's engine running, and is this its listen address?)", last.message()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (!deadline.expired());
  if (deadline.expired() && last.code() == StatusCode::kIoError) {
    return Timeout(last.message() + " (gave up at the timeout)");
  }
  return last;
}

Result<Listener> Listener::Bind(const HostPort& where, int backlog) {
  auto resolved = Resolve(where, true);
  if (!resolved.ok()) return resolved.status();
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(*resolved, &::freeaddrinfo);
  Status last = IoError("no address to bind for " + FormatHostPort(where));
  for (const addrinfo* ai = list.get(); ai != nullptr; ai = ai->ai_next) {
    UniqueFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                         ai->ai_protocol));
    if (!fd.valid()) {
      last = ErrnoStatus("socket", errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (::bind(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd.get(), backlog) != 0) {
      last = ErrnoStatus("bind/listen on " + FormatHostPort(where), errno);
      continue;
    }
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len);
    char host[NI_MAXHOST];
    char port[NI_MAXSERV];
    ::getnameinfo(reinterpret_cast<sockaddr*>(&addr), len, host, sizeof(host), port, sizeof(port),
                  NI_NUMERICHOST | NI_NUMERICSERV);
    Listener listener;
    listener.fd_ = std::move(fd);
    listener.local_ = {host, static_cast<uint16_t>(std::stoi(port))};
    return listener;
  }
  return last;
}

namespace {

Result<Socket> AcceptOn(int listen_fd, Deadline deadline) {
  for (;;) {
    int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) return Socket(UniqueFd(fd));
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return ErrnoStatus("accept", errno);
    pollfd pfd{listen_fd, POLLIN, 0};
    int rc = ::poll(&pfd, 1, deadline.remaining_ms());
    if (rc == 0 && deadline.expired()) return Timeout("no peer connected within the timeout");
    if (rc < 0 && errno != EINTR) return ErrnoStatus("poll", errno);
  }
}

sockaddr_un AbstractAddress(const std::string& name, socklen_t& len) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  // Abstract namespace: a leading NUL, no file on disk, gone with the socket.
  size_t n = std::min(name.size(), sizeof(addr.sun_path) - 1);
  std::memcpy(addr.sun_path + 1, name.data(), n);
  len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
  return addr;
}

}  // namespace

Result<Socket> Listener::Accept(Deadline deadline) { return AcceptOn(fd_.get(), deadline); }

Result<UniqueFd> ListenUnixAbstract(const std::string& name) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return ErrnoStatus("socket(AF_UNIX)", errno);
  socklen_t len;
  sockaddr_un addr = AbstractAddress(name, len);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd.get(), 4) != 0) {
    return ErrnoStatus("bind/listen on unix socket @" + name, errno);
  }
  return fd;
}

Result<Socket> AcceptUnix(int listen_fd, Deadline deadline) { return AcceptOn(listen_fd, deadline); }

Result<Socket> ConnectUnixAbstract(const std::string& name, Deadline deadline) {
  socklen_t len;
  sockaddr_un addr = AbstractAddress(name, len);
  for (;;) {
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd.valid()) return ErrnoStatus("socket(AF_UNIX)", errno);
    if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), len) == 0) {
      return Socket(std::move(fd));
    }
    if (errno != ECONNREFUSED && errno != ENOENT && errno != EAGAIN) {
      return ErrnoStatus("connect to unix socket @" + name, errno);
    }
    if (deadline.expired()) return Timeout("unix socket @" + name + " did not accept in time");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace xfer
