// The symmetric data-socket setup: both sides end up with matching socket
// pairs, and malformed or foreign setup traffic is refused.
#include "transport/tcp/stream_setup.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <future>

#include "common/wire.h"
#include "tcp_test_util.h"

namespace xfer::transport::tcp::testing {
namespace {

using namespace std::chrono_literals;

class StreamSetupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    a_control_ = Socket(UniqueFd(fds[0]));
    b_control_ = Socket(UniqueFd(fds[1]));
  }

  EndpointSetup Setup(Socket& control, uint32_t streams, bool initiator) {
    EndpointSetup setup = MakeSetup(control, memory_, memory_, streams, 1000ms, initiator);
    setup.deadline = Deadline::After(2s);
    return setup;
  }

  // Plays a peer by hand: answers the real side's setup message with
  // `port`/`streams`/`token` and returns the real side's message fields.
  struct PeerMessage {
    uint16_t port = 0;
    uint32_t streams = 0;
    uint64_t token = 0;
  };
  PeerMessage ExchangeByHand(uint16_t port, uint32_t streams, uint64_t token) {
    PeerMessage theirs;
    auto body = b_control_.RecvMessage(64, Deadline::After(kWait));
    EXPECT_TRUE(body.ok());
    if (!body.ok()) return theirs;
    WireReader in(*body);
    uint32_t magic = 0;
    uint16_t version = 0;
    EXPECT_TRUE(in.U32(magic).ok());
    EXPECT_TRUE(in.U16(version).ok());
    EXPECT_TRUE(in.U16(theirs.port).ok());
    EXPECT_TRUE(in.U32(theirs.streams).ok());
    EXPECT_TRUE(in.U64(theirs.token).ok());
    WireWriter out;
    out.U32(magic);
    out.U16(version);
    out.U16(port);
    out.U32(streams);
    out.U64(token);
    EXPECT_TRUE(b_control_.SendMessage(out.bytes(), Deadline::After(kWait)).ok());
    return theirs;
  }

  static Status SendHello(Socket& socket, uint32_t index, uint64_t token) {
    WireWriter hello;
    hello.U32(0x4c484358);
    hello.U32(index);
    hello.U64(token);
    return socket.SendAll(hello.bytes().data(), hello.bytes().size(), Deadline::After(kWait));
  }

  xfer::testing::TestMemory memory_;
  Socket a_control_;
  Socket b_control_;
};

TEST_F(StreamSetupTest, BothSidesGetMatchingSocketPairs) {
  constexpr uint32_t kStreams = 3;
  auto b = std::async(std::launch::async, [&] {
    return EstablishStreams(Setup(b_control_, kStreams, false), StreamOptions{1 << 20});
  });
  auto a = EstablishStreams(Setup(a_control_, kStreams, true), StreamOptions{});
  auto b_sockets = b.get();
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b_sockets.ok()) << b_sockets.status().ToString();
  ASSERT_EQ(a->outgoing.size(), kStreams);
  ASSERT_EQ(a->incoming.size(), kStreams);
  ASSERT_EQ(b_sockets->outgoing.size(), kStreams);
  ASSERT_EQ(b_sockets->incoming.size(), kStreams);
  // a.outgoing[i] is b.incoming[i], and the other way round.
  for (uint8_t i = 0; i < kStreams; ++i) {
    uint8_t sent = static_cast<uint8_t>(10 + i);
    uint8_t got = 0;
    ASSERT_TRUE(a->outgoing[i].SendAll(&sent, 1, Deadline::After(kWait)).ok());
    ASSERT_TRUE(b_sockets->incoming[i].RecvAll(&got, 1, Deadline::After(kWait)).ok());
    EXPECT_EQ(got, sent);
    ASSERT_TRUE(b_sockets->outgoing[i].SendAll(&sent, 1, Deadline::After(kWait)).ok());
    ASSERT_TRUE(a->incoming[i].RecvAll(&got, 1, Deadline::After(kWait)).ok());
    EXPECT_EQ(got, sent);
  }
  // The control channel is left open and idle.
  uint8_t ping = 7;
  uint8_t pong = 0;
  ASSERT_TRUE(a_control_.SendAll(&ping, 1, Deadline::After(kWait)).ok());
  ASSERT_TRUE(b_control_.RecvAll(&pong, 1, Deadline::After(kWait)).ok());
  EXPECT_EQ(pong, ping);
}

TEST_F(StreamSetupTest, DisagreeingStreamCountsAreRefused) {
  auto b = std::async(std::launch::async, [&] {
    return EstablishStreams(Setup(b_control_, 2, false), StreamOptions{});
  });
  auto a = EstablishStreams(Setup(a_control_, 1, true), StreamOptions{});
  EXPECT_EQ(a.status().code(), StatusCode::kProtocolError);
  EXPECT_EQ(b.get().status().code(), StatusCode::kProtocolError);
}

TEST_F(StreamSetupTest, MalformedControlMessageIsRefused) {
  auto a = std::async(std::launch::async, [&] {
    return EstablishStreams(Setup(a_control_, 1, true), StreamOptions{});
  });
  ASSERT_TRUE(b_control_.RecvMessage(64, Deadline::After(kWait)).ok());
  std::vector<uint8_t> garbage(20, 0x33);
  ASSERT_TRUE(b_control_.SendMessage(garbage, Deadline::After(kWait)).ok());
  EXPECT_EQ(a.get().status().code(), StatusCode::kProtocolError);
}

TEST_F(StreamSetupTest, OversizedControlMessageIsRefused) {
  auto a = std::async(std::launch::async, [&] {
    return EstablishStreams(Setup(a_control_, 1, true), StreamOptions{});
  });
  ASSERT_TRUE(b_control_.RecvMessage(64, Deadline::After(kWait)).ok());
  std::vector<uint8_t> big(4096, 0);
  ASSERT_TRUE(b_control_.SendMessage(big, Deadline::After(kWait)).ok());
  EXPECT_EQ(a.get().status().code(), StatusCode::kProtocolError);
}

TEST_F(StreamSetupTest, WrongTokenIsRefused) {
  auto a = std::async(std::launch::async, [&] {
    return EstablishStreams(Setup(a_control_, 1, true), StreamOptions{});
  });
  auto listener = Listener::Bind({"127.0.0.1", 0});
  ASSERT_TRUE(listener.ok());
  PeerMessage theirs = ExchangeByHand(listener->local_address().port, 1, 1234);
  auto socket = ConnectTcp({"127.0.0.1", theirs.port}, Deadline::After(kWait));
  ASSERT_TRUE(socket.ok());
  ASSERT_TRUE(SendHello(*socket, 0, theirs.token + 1).ok());
  auto result = a.get();
  EXPECT_EQ(result.status().code(), StatusCode::kProtocolError) << result.status().ToString();
  EXPECT_NE(result.status().message().find("token"), std::string::npos);
}

TEST_F(StreamSetupTest, DuplicateOrOutOfRangeIndexIsRefused) {
  for (uint32_t second_index : {0u, 2u}) {
    SetUp();
    auto a = std::async(std::launch::async, [&] {
      return EstablishStreams(Setup(a_control_, 2, true), StreamOptions{});
    });
    auto listener = Listener::Bind({"127.0.0.1", 0});
    ASSERT_TRUE(listener.ok());
    PeerMessage theirs = ExchangeByHand(listener->local_address().port, 2, 99);
    std::vector<Socket> sockets;
    for (uint32_t index : {0u, second_index}) {
      auto socket = ConnectTcp({"127.0.0.1", theirs.port}, Deadline::After(kWait));
      ASSERT_TRUE(socket.ok());
      ASSERT_TRUE(SendHello(*socket, index, theirs.token).ok());
      sockets.push_back(std::move(*socket));
    }
    auto result = a.get();
    EXPECT_EQ(result.status().code(), StatusCode::kProtocolError) << second_index;
  }
}

// The peer's death shows only on the control connection while this side
// waits for its data streams: it must be noticed there, not at the 2 s
// deadline.
TEST_F(StreamSetupTest, PeerThatDiesBeforeConnectingItsStreamsIsConnectionLostAtOnce) {
  auto a = std::async(std::launch::async, [&] {
    return EstablishStreams(Setup(a_control_, 1, true), StreamOptions{});
  });
  auto listener = Listener::Bind({"127.0.0.1", 0});
  ASSERT_TRUE(listener.ok());
  ExchangeByHand(listener->local_address().port, 1, 77);
  const auto closed_at = std::chrono::steady_clock::now();
  b_control_.Close();
  auto result = a.get();
  EXPECT_EQ(result.status().code(), StatusCode::kConnectionLost) << result.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - closed_at, 1000ms);
}

// Its death also shows when its listener is gone: the connect is refused,
// and refused again, until the control connection says why.
TEST_F(StreamSetupTest, PeerThatDiesWithItsListenerIsConnectionLostWithinASecond) {
  auto a = std::async(std::launch::async, [&] {
    EndpointSetup setup = Setup(a_control_, 1, true);
    setup.deadline = Deadline::After(5s);
    return EstablishStreams(setup, StreamOptions{});
  });
  uint16_t closed_port = 0;
  {
    auto listener = Listener::Bind({"127.0.0.1", 0});
    ASSERT_TRUE(listener.ok());
    closed_port = listener->local_address().port;
  }  // closed: connects to it are refused
  ExchangeByHand(closed_port, 1, 77);
  const auto closed_at = std::chrono::steady_clock::now();
  b_control_.Close();
  auto result = a.get();
  EXPECT_EQ(result.status().code(), StatusCode::kConnectionLost) << result.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - closed_at, 2500ms);
}

TEST_F(StreamSetupTest, SilentPeerTimesOut) {
  EndpointSetup setup = Setup(a_control_, 1, true);
  setup.deadline = Deadline::After(200ms);
  auto start = std::chrono::steady_clock::now();
  auto result = EstablishStreams(setup, StreamOptions{});
  EXPECT_EQ(result.status().code(), StatusCode::kTimeout) << result.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST_F(StreamSetupTest, RejectsBadStreamCounts) {
  EXPECT_EQ(EstablishStreams(Setup(a_control_, 0, true), {}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(EstablishStreams(Setup(a_control_, 65, true), {}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(StreamSetupTest, BindsWhereThePeerCanReachUs) {
  // Unix control socket: decided by the peer's address.
  EXPECT_EQ(ChooseBindHost(a_control_, "127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(ChooseBindHost(a_control_, "127.1.2.3"), "127.0.0.1");
  EXPECT_EQ(ChooseBindHost(a_control_, "::1"), "::1");
  EXPECT_EQ(ChooseBindHost(a_control_, "10.1.2.3"), "0.0.0.0");
  EXPECT_EQ(ChooseBindHost(a_control_, "fe80::1"), "::");
  // TCP control socket: its own local address.
  auto listener = Listener::Bind({"127.0.0.1", 0});
  ASSERT_TRUE(listener.ok());
  auto tcp = ConnectTcp(listener->local_address(), Deadline::After(kWait));
  ASSERT_TRUE(tcp.ok());
  EXPECT_EQ(ChooseBindHost(*tcp, "10.9.9.9"), "127.0.0.1");
}

}  // namespace
}  // namespace xfer::transport::tcp::testing
