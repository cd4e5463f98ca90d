// common/socket.h, the sockets every channel of xfer stands on: deadlines,
// lost peers, message framing and its length limit, descriptor passing,
// host:port parsing.
#include "common/socket.h"

#include <fcntl.h>
#include <poll.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace xfer {
namespace {

using namespace std::chrono_literals;

Deadline In(std::chrono::milliseconds timeout) { return Deadline::After(timeout); }

// Two connected Unix stream sockets.
std::pair<Socket, Socket> SocketPair() {
  int fds[2] = {-1, -1};
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  return {Socket(UniqueFd(fds[0])), Socket(UniqueFd(fds[1]))};
}

TEST(ParseHostPort, ReadsNamesIpv4AndBracketedIpv6) {
  auto named = ParseHostPort("node7:18515");
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->host, "node7");
  EXPECT_EQ(named->port, 18515);
  auto v6 = ParseHostPort("[fe80::1]:0");
  ASSERT_TRUE(v6.ok()) << v6.status().ToString();
  EXPECT_EQ(v6->host, "fe80::1");
  EXPECT_EQ(v6->port, 0);
  EXPECT_EQ(FormatHostPort(*v6), "[fe80::1]:0");
  EXPECT_EQ(FormatHostPort({"10.0.0.1", 7}), "10.0.0.1:7");
}

TEST(ParseHostPort, RefusesWhatIsNoHostAndPort) {
  for (const char* text : {"", "node7", "node7:", ":80", "node7:65536", "node7:-1", "node7:8x",
                           "[fe80::1:80", "fe80::1:80"}) {
    const auto parsed = ParseHostPort(text);
    EXPECT_FALSE(parsed.ok()) << "'" << text << "' parsed";
    if (!parsed.ok()) {
      EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << text;
    }
  }
  EXPECT_EQ(ParseHostPort("fe80::1:80").status().message(),
            "address 'fe80::1:80' is ambiguous: an IPv6 host goes in brackets, as in [fe80::1]:80");
}

TEST(Socket, BytesArriveWholeAndInOrder) {
  auto [a, b] = SocketPair();
  std::vector<uint8_t> sent(1 << 20);
  for (size_t i = 0; i < sent.size(); ++i) sent[i] = static_cast<uint8_t>(i * 7);
  std::thread writer([&] { EXPECT_TRUE(a.SendAll(sent.data(), sent.size(), In(10s)).ok()); });
  std::vector<uint8_t> received(sent.size());
  ASSERT_TRUE(b.RecvAll(received.data(), received.size(), In(10s)).ok());
  writer.join();
  EXPECT_EQ(received, sent);
}

TEST(Socket, ASilentPeerIsATimeoutAndAClosedOneALostConnection) {
  auto [a, b] = SocketPair();
  char byte = 0;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(b.RecvAll(&byte, 1, In(30ms)).code(), StatusCode::kTimeout);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 30ms);
  EXPECT_FALSE(b.PeerClosed());
  a.Close();
  EXPECT_TRUE(b.PeerClosed());
  EXPECT_EQ(b.RecvAll(&byte, 1, In(1s)).code(), StatusCode::kConnectionLost);
}

// Two connected TCP sockets over loopback, the first with `send_buffer`.
std::pair<Socket, Socket> TcpPair(int send_buffer) {
  auto listener = Listener::Bind({"127.0.0.1", 0});
  EXPECT_TRUE(listener.ok());
  auto client = ConnectTcp(listener->local_address(), In(5s));
  EXPECT_TRUE(client.ok());
  auto server = listener->Accept(In(5s));
  EXPECT_TRUE(server.ok());
  EXPECT_EQ(::setsockopt(client->fd(), SOL_SOCKET, SO_SNDBUF, &send_buffer, sizeof(send_buffer)),
            0);
  return {std::move(*client), std::move(*server)};
}

// Writes without blocking until the kernel takes no more: the peer reads
// nothing, so the rest waits in this side's send queue. Returns the bytes
// written.
size_t FillUntilFull(Socket& socket) {
  std::vector<uint8_t> chunk(64 << 10, 0x5a);
  size_t written = 0;
  for (;;) {
    const ssize_t n = ::send(socket.fd(), chunk.data(), chunk.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n <= 0) return written;
    written += static_cast<size_t>(n);
  }
}

// Reads until EOF or reset; returns the bytes read and how it ended.
std::pair<size_t, Status> Drain(Socket& socket) {
  std::vector<uint8_t> buffer(64 << 10);
  size_t read = 0;
  for (;;) {
    pollfd readable{socket.fd(), POLLIN, 0};
    if (::poll(&readable, 1, 5000) != 1) return {read, Timeout("nothing to read for 5 s")};
    const ssize_t n = ::recv(socket.fd(), buffer.data(), buffer.size(), 0);
    if (n == 0) return {read, Status::Ok()};  // EOF: the close was orderly
    if (n < 0) return {read, ConnectionLost(ErrnoMessage("recv", errno))};
    read += static_cast<size_t>(n);
  }
}

// The failover fence's tcp half: a socket closed abortively drops what it
// still had queued (its peer sees a reset, never those bytes), where an
// orderly close delivers every byte before the end -- which, for a rail
// whose link comes back after its slices were dealt elsewhere, would be
// late bytes landing.
TEST(Socket, AnAbortiveCloseDropsWhatIsStillQueuedAndAnOrderlyOneDeliversIt) {
  {
    auto [a, b] = TcpPair(64 << 10);
    const size_t written = FillUntilFull(a);
    a.Close();
    const auto [read, ended] = Drain(b);
    EXPECT_TRUE(ended.ok()) << ended.ToString();
    EXPECT_EQ(read, written);
  }
  {
    auto [a, b] = TcpPair(64 << 10);
    const size_t written = FillUntilFull(a);
    a.AbortOnClose();
    a.Close();
    const auto [read, ended] = Drain(b);
    EXPECT_EQ(ended.code(), StatusCode::kConnectionLost) << ended.ToString();
    EXPECT_NE(ended.message().find("reset"), std::string::npos) << ended.ToString();
    EXPECT_LT(read, written);
  }
}

TEST(Socket, PeekDoesNotConsumeAndRecvSomeDoesNotBlock) {
  auto [a, b] = SocketPair();
  std::array<char, 8> buffer{};
  auto nothing = b.RecvSome(buffer.data(), buffer.size());
  ASSERT_TRUE(nothing.ok());
  EXPECT_EQ(*nothing, 0u);
  ASSERT_TRUE(a.SendAll("greeting", 8, In(1s)).ok());
  ASSERT_TRUE(b.PeekAll(buffer.data(), 5, In(1s)).ok());
  EXPECT_EQ(std::string(buffer.data(), 5), "greet");
  auto some = b.RecvSome(buffer.data(), buffer.size());
  ASSERT_TRUE(some.ok());
  EXPECT_EQ(std::string(buffer.data(), *some), "greeting");
  a.Close();
  EXPECT_EQ(b.RecvSome(buffer.data(), buffer.size()).status().code(), StatusCode::kConnectionLost);
}

TEST(Socket, MessagesKeepTheirBoundariesAndAnOverlongOneIsRefusedUnread) {
  auto [a, b] = SocketPair();
  const std::vector<uint8_t> first = {1, 2, 3};
  const std::vector<uint8_t> empty;
  ASSERT_TRUE(a.SendMessage(first, In(1s)).ok());
  ASSERT_TRUE(a.SendMessage(empty, In(1s)).ok());
  auto got = b.RecvMessage(16, In(1s));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, first);
  got = b.RecvMessage(16, In(1s));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(got->empty());

  // A peer announcing 4 GiB - 1 gets no allocation: the limit is checked on
  // the length word alone.
  const uint8_t huge[4] = {0xff, 0xff, 0xff, 0xff};
  ASSERT_TRUE(a.SendAll(huge, sizeof huge, In(1s)).ok());
  const auto refused = b.RecvMessage(1 << 20, In(1s));
  EXPECT_EQ(refused.status().code(), StatusCode::kProtocolError) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("not an xfer peer"), std::string::npos)
      << refused.status().ToString();

  // Issue 43, item 26: another protocol on the port is named as such, its
  // bytes shown, not only as a 1347703880-byte message.
  auto [c, d] = SocketPair();
  const std::string http = "HTTP/1.1 400 Bad Request\r\n";
  ASSERT_TRUE(c.SendAll(http.data(), http.size(), In(1s)).ok());
  const auto foreign = d.RecvMessage(1 << 20, In(1s));
  EXPECT_NE(foreign.status().message().find("not an xfer peer"), std::string::npos)
      << foreign.status().ToString();
  EXPECT_NE(foreign.status().message().find("read 'HTTP' as text"), std::string::npos)
      << foreign.status().ToString();
}

TEST(Socket, DescriptorsTravelWithAMessage) {
  auto [a, b] = SocketPair();
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  UniqueFd read_end(pipe_fds[0]);
  UniqueFd write_end(pipe_fds[1]);
  const std::vector<uint8_t> body = {42};
  const std::array<int, 1> fds = {write_end.get()};
  ASSERT_TRUE(a.SendFds(fds, body, In(1s)).ok());
  std::vector<uint8_t> received_body(body.size());  // the agreed size
  auto received = b.RecvFds(4, received_body, 16, In(1s));
  ASSERT_TRUE(received.ok()) << received.status().ToString();
  ASSERT_EQ(received->size(), 1u);
  EXPECT_EQ(received_body, body);
  // The passed descriptor is the same pipe: what it writes, the read end reads.
  ASSERT_EQ(::write((*received)[0].get(), "x", 1), 1);
  char byte = 0;
  ASSERT_EQ(::read(read_end.get(), &byte, 1), 1);
  EXPECT_EQ(byte, 'x');
}

TEST(Socket, TooManyDescriptorsAreAnError) {
  auto [a, b] = SocketPair();
  const std::array<int, 3> fds = {0, 1, 2};
  const std::vector<uint8_t> body = {1};
  ASSERT_TRUE(a.SendFds(fds, body, In(1s)).ok());
  std::vector<uint8_t> received_body(body.size());
  EXPECT_EQ(b.RecvFds(2, received_body, 16, In(1s)).status().code(), StatusCode::kProtocolError);
}

TEST(Listener, AcceptsAConnectionOnAFreePortAndTimesOutWithoutOne) {
  auto listener = Listener::Bind({"127.0.0.1", 0});
  ASSERT_TRUE(listener.ok()) << listener.status().ToString();
  const uint16_t port = listener->local_address().port;
  EXPECT_NE(port, 0);
  EXPECT_EQ(listener->Accept(In(20ms)).status().code(), StatusCode::kTimeout);

  auto client = ConnectTcp({"127.0.0.1", port}, In(5s));
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  auto server = listener->Accept(In(5s));
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  EXPECT_EQ(server->PeerHost(), "127.0.0.1");
  ASSERT_TRUE(client->SendAll("ping", 4, In(1s)).ok());
  char word[4];
  ASSERT_TRUE(server->RecvAll(word, 4, In(1s)).ok());
  EXPECT_EQ(std::string(word, 4), "ping");
}

TEST(Listener, ABoundPortIsRefusedToASecondListener) {
  auto first = Listener::Bind({"127.0.0.1", 0});
  ASSERT_TRUE(first.ok());
  auto second = Listener::Bind({"127.0.0.1", first->local_address().port});
  EXPECT_FALSE(second.ok());
}

// A refused connect is retried until the deadline (the server may still be
// starting), then reported as a timeout.
TEST(ConnectTcp, RetriesARefusedPortUntilTheDeadline) {
  uint16_t port = 0;
  {
    auto probe = Listener::Bind({"127.0.0.1", 0});
    ASSERT_TRUE(probe.ok());
    port = probe->local_address().port;
  }  // closed: nobody listens there now
  const auto start = std::chrono::steady_clock::now();
  const auto refused = ConnectTcp({"127.0.0.1", port}, In(200ms));
  EXPECT_EQ(refused.status().code(), StatusCode::kTimeout) << refused.status().ToString();
  EXPECT_GE(std::chrono::steady_clock::now() - start, 200ms);

  EXPECT_EQ(ConnectTcp({"no such host.invalid", 1}, In(1s)).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(UnixAbstract, ConnectsByName) {
  const std::string name = "xfer-socket-test-" + std::to_string(::getpid());
  auto listening = ListenUnixAbstract(name);
  ASSERT_TRUE(listening.ok()) << listening.status().ToString();
  auto client = ConnectUnixAbstract(name, In(1s));
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  auto server = AcceptUnix(listening->get(), In(1s));
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  EXPECT_EQ(server->PeerHost(), "");
  EXPECT_FALSE(ConnectUnixAbstract(name + "-nobody", In(50ms)).ok());
}

}  // namespace
}  // namespace xfer
