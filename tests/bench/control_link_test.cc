// bench/control_link.h: the framing and session messages both control
// protocols share, on a socket pair with a protocol made up here.
#include "bench/control_link.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <chrono>
#include <memory>

namespace xfer::bench {
namespace {

using namespace std::chrono_literals;

const char* LinkTestTypeName(uint8_t type) { return type == 1 ? "Ping" : nullptr; }

constexpr ControlProtocol kLinkTestProtocol{.channel = "test control",
                                            .magic = 0x54534554,
                                            .max_message = 256,
                                            .heartbeat = 7,
                                            .done = 8,
                                            .abort = 9,
                                            .type_name = LinkTestTypeName};

// Two ends of one connection (a link holds a mutex: it does not move).
struct LinkPair {
  LinkPair() {
    int fds[2] = {-1, -1};
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    a = std::make_unique<ControlLink>(Socket(UniqueFd(fds[0])), 200ms, kLinkTestProtocol);
    b = std::make_unique<ControlLink>(Socket(UniqueFd(fds[1])), 200ms, kLinkTestProtocol);
  }
  std::unique_ptr<ControlLink> a;
  std::unique_ptr<ControlLink> b;
};

TEST(ControlLink, HeartbeatsAreSkippedAndMessagesComeWhole) {
  LinkPair pair;
  ControlLink& a = *pair.a;
  ControlLink& b = *pair.b;
  ASSERT_TRUE(a.SendHeartbeat().ok());
  WireWriter ping = a.Begin(1);
  ping.U32(42);
  ASSERT_TRUE(a.Send(ping.bytes()).ok());
  auto got = b.Recv(1);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->type, 1);
  EXPECT_EQ(got->bytes, ping.bytes());
  EXPECT_EQ(got->body().size(), 4u);
  ASSERT_TRUE(a.SendDone().ok());
  EXPECT_TRUE(b.RecvDone().ok());
}

TEST(ControlLink, AnAbortBecomesThePeersReason) {
  LinkPair pair;
  ControlLink& a = *pair.a;
  ControlLink& b = *pair.b;
  a.SendAbort("disk full");
  const auto got = b.Recv(1);
  EXPECT_EQ(got.status().code(), StatusCode::kConnectionLost);
  EXPECT_EQ(got.status().message(), "the peer failed: disk full");
}

TEST(ControlLink, WrongMessagesAreNamed) {
  LinkPair pair;
  ControlLink& a = *pair.a;
  ControlLink& b = *pair.b;
  ASSERT_TRUE(a.SendDone().ok());
  EXPECT_EQ(b.Recv(1).status().message(), "test control: expected Ping, got Done");
  ASSERT_TRUE(a.Send(a.Begin(5).bytes()).ok());
  EXPECT_EQ(b.RecvAny().status().message(), "test control: unknown message type 5");
  WireWriter foreign;
  foreign.U32(0x12345678);
  foreign.U8(1);
  ASSERT_TRUE(a.Send(foreign.bytes()).ok());
  EXPECT_EQ(b.RecvAny().status().code(), StatusCode::kProtocolError);
  WireWriter done = a.Begin(8);
  done.U8(1);
  ASSERT_TRUE(a.Send(done.bytes()).ok());
  EXPECT_EQ(b.RecvDone().message(), "test control: malformed Done");
  EXPECT_EQ(b.Recv(1).status().code(), StatusCode::kTimeout);
}

// WatchPeer: an early message stays for its receive; an Abort or a closed
// connection is reported at once.
TEST(ControlLink, WatchingThePeerConsumesOnlyAnAbort) {
  LinkPair pair;
  ControlLink& a = *pair.a;
  ControlLink& b = *pair.b;
  auto idle = b.WatchPeer();
  ASSERT_TRUE(idle.ok());
  EXPECT_FALSE(*idle);
  ASSERT_TRUE(a.Send(a.Begin(1).bytes()).ok());
  auto early = b.WatchPeer();
  ASSERT_TRUE(early.ok());
  EXPECT_TRUE(*early);
  EXPECT_TRUE(b.Recv(1).ok());  // still there
  a.SendAbort("stopped");
  EXPECT_EQ(b.WatchPeer().status().message(), "the peer failed: stopped");
  LinkPair other;
  other.a.reset();  // the peer's end closes
  EXPECT_EQ(other.b->WatchPeer().status().code(), StatusCode::kConnectionLost);
}

}  // namespace
}  // namespace xfer::bench
