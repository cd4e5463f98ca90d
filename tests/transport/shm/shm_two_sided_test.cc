// Two-sided send/recv over the shm transport, beyond the conformance suite
// (tests/conformance/): large and empty messages both ways, a missing
// receive, concurrent senders.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "shm_test_util.h"

namespace xfer::testing {
namespace {

using std::chrono::milliseconds;
using transport::LocalRegionView;


class ShmTwoSidedTest : public ::testing::Test {
 protected:
  void Connect(milliseconds io_timeout = milliseconds(5000)) {
    a_mem_ = pair_.initiator_memory.Add(size_t{16} << 20, Access::kRemoteReadWrite);
    b_mem_ = pair_.target_memory.Add(size_t{16} << 20, Access::kRemoteReadWrite);
    ASSERT_TRUE(ConnectPair(shm_, shm_, pair_, 1, io_timeout).ok());
  }
  transport::Endpoint& a() { return *pair_.initiator; }
  transport::Endpoint& b() { return *pair_.target; }

  transport::shm::ShmTransport shm_;
  EndpointPair pair_;
  LocalRegionView a_mem_, b_mem_;
};

TEST_F(ShmTwoSidedTest, BothDirectionsLargeAndEmptyMessages) {
  Connect();
  const size_t big = size_t{9} << 20;  // several of the channel's chunks
  FillPattern(b_mem_.address, big, 77);
  TransferRequest recv_big, recv_empty, send_big, send_empty;
  ASSERT_TRUE(a().PostRecv(a_mem_.address, a_mem_.length, recv_big).ok());
  ASSERT_TRUE(a().PostRecv(a_mem_.address, 0, recv_empty).ok());
  ASSERT_TRUE(b().PostSend(b_mem_.address, big, send_big, 0).ok());
  ASSERT_TRUE(b().PostSend(b_mem_.address, 0, send_empty, 0).ok());
  ASSERT_TRUE(recv_big.Wait(kWait).ok()) << recv_big.Test().ToString();
  ASSERT_TRUE(recv_empty.Wait(kWait).ok()) << recv_empty.Test().ToString();
  EXPECT_EQ(recv_big.bytes(), big);
  EXPECT_EQ(recv_empty.bytes(), 0u);
  EXPECT_EQ(std::memcmp(a_mem_.address, b_mem_.address, big), 0);
}

// Like RDMA's receiver-not-ready retries running out: the receiver fails the
// connection with kTimeout and tells the sender why.
TEST_F(ShmTwoSidedTest, NoReceivePostedFailsTheConnectionWithTimeout) {
  Connect(milliseconds(200));
  TransferRequest a_recv, send;
  ASSERT_TRUE(a().PostRecv(a_mem_.address, 64, a_recv).ok());
  ASSERT_TRUE(a().PostSend(a_mem_.address, 64, send, 0).ok());
  Status at_sender = a_recv.Wait(kWait);
  EXPECT_EQ(at_sender.code(), StatusCode::kTimeout) << at_sender.ToString();
  EXPECT_NE(at_sender.message().find("no receive was posted"), std::string::npos)
      << at_sender.ToString();
  TransferRequest late;
  Status at_receiver = b().PostRecv(b_mem_.address, 64, late);
  EXPECT_EQ(at_receiver.code(), StatusCode::kTimeout) << at_receiver.ToString();
  EXPECT_TRUE(late.Test().ok());  // refused, never started
  TransferEntry entry{a_mem_.address, Addr(b_mem_.address), 8};
  EXPECT_EQ(a().PostWrite({&entry, 1}, send, 0).code(), StatusCode::kTimeout);
}

TEST_F(ShmTwoSidedTest, ConcurrentSendersKeepMessagesWhole) {
  Connect();
  constexpr size_t kThreads = 3;
  constexpr int kPerThread = 50;
  constexpr size_t kSize = 3000;
  std::vector<TransferRequest> recvs(kThreads * kPerThread);
  for (size_t i = 0; i < recvs.size(); ++i) {
    ASSERT_TRUE(b().PostRecv(Ptr(b_mem_) + i * kSize, kSize, recvs[i]).ok());
  }
  std::vector<std::thread> senders;
  for (size_t t = 0; t < kThreads; ++t) {
    FillPattern(Ptr(a_mem_) + t * kSize, kSize, static_cast<uint8_t>(t));
    Ptr(a_mem_)[t * kSize] = static_cast<uint8_t>(t);  // first byte names the sender
    senders.emplace_back([&, t] {
      TransferRequest send;
      for (int i = 0; i < kPerThread; ++i) {
        ASSERT_TRUE(a().PostSend(Ptr(a_mem_) + t * kSize, kSize, send, 0).ok());
        ASSERT_TRUE(send.Wait(kWait).ok());
      }
    });
  }
  for (auto& s : senders) s.join();
  for (size_t i = 0; i < recvs.size(); ++i) {
    ASSERT_TRUE(recvs[i].Wait(kWait).ok());
    const uint8_t* got = Ptr(b_mem_) + i * kSize;
    ASSERT_LT(got[0], kThreads);
    EXPECT_EQ(std::memcmp(got, Ptr(a_mem_) + got[0] * kSize, kSize), 0) << "message " << i;
  }
}

}  // namespace
}  // namespace xfer::testing
