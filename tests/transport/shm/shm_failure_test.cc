// A connected shm endpoint whose peer sends garbage frames, stalls, hangs up
// or goes away: posted receives fail with the right code, later posts fail
// too, and every failure is reported within io_timeout.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "shm_test_util.h"
#include "transport/shm/frame.h"

namespace xfer::testing {
namespace {

using std::chrono::milliseconds;
using transport::shm::FrameHeader;
using transport::shm::kFrameMagic;
using transport::shm::kFrameSend;

// A real initiator connected to a hand-driven target that shares nothing.
class ShmPeerFailureTest : public ::testing::Test {
 protected:
  void Connect(milliseconds io_timeout = milliseconds(2000)) {
    local_ = half_.memory.Add(65536, Access::kRemoteReadWrite);
    FakeLocalMemory fake_table({});
    auto endpoint = ConnectToFakeTarget(half_, fake_table, fake_, io_timeout);
    ASSERT_TRUE(endpoint.ok()) << endpoint.status().ToString();
    endpoint_ = std::move(*endpoint);
  }

  void SendRaw(const void* data, size_t length) {
    ASSERT_TRUE(fake_.SendAll(data, length, Deadline::After(kWait)).ok());
  }

  // Posts a receive and sends `frame`; returns how the receive ended.
  Status RecvAfter(const FrameHeader& frame) {
    TransferRequest recv;
    Status posted = endpoint_->PostRecv(local_.address, 64, recv);
    if (!posted.ok()) return posted;
    SendRaw(&frame, sizeof(frame));
    return recv.Wait(kWait);
  }

  HalfPair half_;
  transport::LocalRegionView local_;
  Socket fake_;
  std::unique_ptr<transport::Endpoint> endpoint_;
};

TEST_F(ShmPeerFailureTest, BadMagicFailsPostedReceiveWithProtocolError) {
  Connect();
  Status s = RecvAfter(FrameHeader{0xdeadbeef, kFrameSend, 4});
  EXPECT_EQ(s.code(), StatusCode::kProtocolError) << s.ToString();
  TransferRequest later;
  EXPECT_EQ(endpoint_->PostRecv(local_.address, 64, later).code(), StatusCode::kProtocolError);
  EXPECT_EQ(endpoint_->PostSend(local_.address, 8, later, 0).code(), StatusCode::kProtocolError);
}

TEST_F(ShmPeerFailureTest, UnknownFrameTypeFailsWithProtocolError) {
  Connect();
  Status s = RecvAfter(FrameHeader{kFrameMagic, 99, 0});
  EXPECT_EQ(s.code(), StatusCode::kProtocolError) << s.ToString();
}

TEST_F(ShmPeerFailureTest, AbsurdLengthFailsWithProtocolError) {
  Connect();
  Status s = RecvAfter(FrameHeader{kFrameMagic, kFrameSend, UINT64_MAX});
  EXPECT_EQ(s.code(), StatusCode::kProtocolError) << s.ToString();
}

TEST_F(ShmPeerFailureTest, MalformedAbortFrameFailsWithProtocolError) {
  Connect();
  Status s = RecvAfter(FrameHeader{kFrameMagic, transport::shm::kFrameAbort, 1u << 20});
  EXPECT_EQ(s.code(), StatusCode::kProtocolError) << s.ToString();
}

TEST_F(ShmPeerFailureTest, PeerHangingUpMidMessageIsConnectionLost) {
  Connect();
  TransferRequest recv;
  ASSERT_TRUE(endpoint_->PostRecv(local_.address, 64, recv).ok());
  FrameHeader header{kFrameMagic, kFrameSend, 40};
  SendRaw(&header, sizeof(header));
  SendRaw("0123456789", 10);
  fake_.Close();
  Status s = recv.Wait(kWait);
  EXPECT_EQ(s.code(), StatusCode::kConnectionLost) << s.ToString();
}

TEST_F(ShmPeerFailureTest, PeerStallingMidMessageTimesOut) {
  Connect(milliseconds(200));
  TransferRequest recv;
  ASSERT_TRUE(endpoint_->PostRecv(local_.address, 64, recv).ok());
  FrameHeader header{kFrameMagic, kFrameSend, 40};
  SendRaw(&header, sizeof(header));
  SendRaw("0123456789", 10);
  Status s = recv.Wait(kWait);
  EXPECT_EQ(s.code(), StatusCode::kTimeout) << s.ToString();
}

// An idle connection is not a dead one: with nothing sent for longer than
// io_timeout, a receive posted later still gets the next message.
TEST_F(ShmPeerFailureTest, IdleConnectionOutlivesIoTimeout) {
  Connect(milliseconds(100));
  std::this_thread::sleep_for(milliseconds(300));
  TransferRequest recv;
  ASSERT_TRUE(endpoint_->PostRecv(local_.address, 64, recv).ok());
  FrameHeader header{kFrameMagic, kFrameSend, 5};
  SendRaw(&header, sizeof(header));
  SendRaw("hello", 5);
  ASSERT_TRUE(recv.Wait(kWait).ok()) << recv.Test().ToString();
  EXPECT_EQ(std::memcmp(local_.address, "hello", 5), 0);
}

// Both ends real: destroying the target is what a peer process dying looks
// like from here (the kernel closes its socket the same way).
TEST(ShmPeerGoneTest, DestroyedPeerFailsReceivesAndLaterPostsWithConnectionLost) {
  transport::shm::ShmTransport shm;
  EndpointPair pair;
  auto local = pair.initiator_memory.Add(65536, Access::kRemoteReadWrite);
  auto remote = pair.target_memory.Add(65536, Access::kRemoteReadWrite);
  ASSERT_TRUE(ConnectPair(shm, shm, pair, 1, milliseconds(2000)).ok());
  TransferRequest recv;
  ASSERT_TRUE(pair.initiator->PostRecv(local.address, 64, recv).ok());
  pair.target.reset();
  Status s = recv.Wait(kWait);
  EXPECT_EQ(s.code(), StatusCode::kConnectionLost) << s.ToString();
  TransferEntry entry{local.address, Addr(remote.address), 64};
  TransferRequest later;
  EXPECT_EQ(pair.initiator->PostWrite({&entry, 1}, later, 0).code(), StatusCode::kConnectionLost);
  EXPECT_EQ(pair.initiator->PostRead({&entry, 1}, later, 0).code(), StatusCode::kConnectionLost);
  EXPECT_EQ(pair.initiator->PostSend(local.address, 8, later, 0).code(),
            StatusCode::kConnectionLost);
  EXPECT_EQ(pair.initiator->PostRecv(local.address, 8, later).code(), StatusCode::kConnectionLost);
}

}  // namespace
}  // namespace xfer::testing
