// Two-sided messages, beyond the conformance suite (tests/conformance/):
// empty and exactly-filling messages, a receiver that never posts, and
// receives failed by a closing peer.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "support/endpoint_pair.h"
#include "tcp_test_util.h"

namespace xfer::transport::tcp::testing {
namespace {

using namespace std::chrono_literals;
using xfer::testing::ConnectPair;
using xfer::testing::EndpointPair;

constexpr size_t kRegion = 1 << 20;

class TcpSendRecvTest : public ::testing::Test {
 protected:
  void Connect(std::chrono::milliseconds io_timeout = 5000ms) {
    send_buf_ = pair_.initiator_memory.Add(kRegion, Access::kRemoteReadWrite);
    recv_buf_ = pair_.target_memory.Add(kRegion, Access::kRemoteReadWrite);
    ASSERT_TRUE(ConnectPair(transport_, transport_, pair_, 2, io_timeout).ok());
  }

  // Sends `length` pattern bytes from offset `at` and waits for the send.
  void Send(size_t at, size_t length, uint32_t seed, uint32_t stream = 0) {
    FillPattern(Bytes(send_buf_) + at, length, seed);
    TransferRequest request;
    ASSERT_TRUE(pair_.initiator->PostSend(Bytes(send_buf_) + at, length, request, stream).ok());
    ASSERT_TRUE(request.Wait(kWait).ok()) << request.Test().ToString();
    EXPECT_EQ(request.bytes(), length);
  }

  TcpTransport transport_;
  EndpointPair pair_;
  LocalRegionView send_buf_;
  LocalRegionView recv_buf_;
};

TEST_F(TcpSendRecvTest, EmptyMessageAndMessageExactlyFillingTheBuffer) {
  Connect();
  TransferRequest empty;
  TransferRequest full;
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(recv_buf_), 100, empty).ok());
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(recv_buf_) + 100, 100, full).ok());
  Send(0, 0, 1);
  Send(0, 100, 2);
  ASSERT_TRUE(empty.Wait(kWait).ok());
  EXPECT_EQ(empty.bytes(), 0u);
  ASSERT_TRUE(full.Wait(kWait).ok());
  EXPECT_EQ(full.bytes(), 100u);
  EXPECT_EQ(FirstPatternMismatch(Bytes(recv_buf_) + 100, 100, 2), 100u);
}

// No receive posted: the target gives up after io_timeout and closes the
// connection; both sides then refuse new work with kConnectionLost.
TEST_F(TcpSendRecvTest, NoReceivePostedFailsTheConnectionWithinTheTimeout) {
  Connect(200ms);
  Send(0, 100, 6);
  auto start = std::chrono::steady_clock::now();
  Status post;
  TransferRequest receive;
  while (std::chrono::steady_clock::now() - start < kWait) {
    std::this_thread::sleep_for(20ms);
    // Probe with a WRITE from the target: refused once the connection died.
    TransferEntry entry{Bytes(recv_buf_), Addr(Bytes(send_buf_)), 8};
    TransferRequest probe;
    post = pair_.target->PostWrite({&entry, 1}, probe, 0);
    if (!post.ok()) break;
    (void)probe.Wait(kWait);
    ASSERT_TRUE(probe.done());
  }
  EXPECT_EQ(post.code(), StatusCode::kConnectionLost) << post.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_NE(post.message().find("no receive was posted"), std::string::npos) << post.message();
  EXPECT_EQ(pair_.target->PostRecv(Bytes(recv_buf_), 10, receive).code(),
            StatusCode::kConnectionLost);
  // The sender sees the closed sockets too.
  TransferRequest write;
  TransferEntry entry{Bytes(send_buf_), Addr(Bytes(recv_buf_)), 8};
  Status sent = pair_.initiator->PostWrite({&entry, 1}, write, 0);
  if (sent.ok()) {
    (void)write.Wait(kWait);
    ASSERT_TRUE(write.done());
    EXPECT_EQ(write.Test().code(), StatusCode::kConnectionLost) << write.Test().ToString();
  } else {
    EXPECT_EQ(sent.code(), StatusCode::kConnectionLost);
  }
}

TEST_F(TcpSendRecvTest, PostedReceivesFailWhenThePeerCloses) {
  Connect();
  TransferRequest a;
  TransferRequest b;
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(recv_buf_), 100, a).ok());
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(recv_buf_), 100, b).ok());
  pair_.initiator->Close();  // the peer goes away
  (void)a.Wait(kWait);
  ASSERT_TRUE(a.done());
  (void)b.Wait(kWait);
  ASSERT_TRUE(b.done());
  EXPECT_EQ(a.Test().code(), StatusCode::kConnectionLost);
  EXPECT_EQ(b.Test().code(), StatusCode::kConnectionLost);
  TransferRequest c;
  EXPECT_EQ(pair_.initiator->PostSend(Bytes(send_buf_), 1, c, 0).code(),
            StatusCode::kConnectionLost);
  EXPECT_TRUE(c.Test().ok()) << "a refused post must leave the request untouched";
}

}  // namespace
}  // namespace xfer::transport::tcp::testing
