// Two-sided send/recv over the shm transport: ordering, sizes, and the
// RDMA-like rules for receives that are too small or missing.
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

constexpr auto kWait = std::chrono::seconds(5);

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

TEST_F(ShmTwoSidedTest, MessagesFillReceivesInPostingOrder) {
  Connect();
  const size_t sizes[] = {5, 4096, 100000};
  TransferRequest recvs[3];
  size_t offset = 0;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(b().PostRecv(Ptr(b_mem_) + offset, 200000, recvs[i]).ok());
    offset += 200000;
  }
  offset = 0;
  for (int i = 0; i < 3; ++i) {
    FillPattern(Ptr(a_mem_) + offset, sizes[i], static_cast<uint8_t>(i + 1));
    TransferRequest send;
    ASSERT_TRUE(a().PostSend(Ptr(a_mem_) + offset, sizes[i], send, 0).ok());
    ASSERT_TRUE(send.Wait(kWait).ok());
    EXPECT_EQ(send.bytes(), sizes[i]);
    offset += sizes[i];
  }
  offset = 0;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(recvs[i].Wait(kWait).ok()) << recvs[i].Test().ToString();
    EXPECT_EQ(recvs[i].bytes(), sizes[i]);
    EXPECT_EQ(std::memcmp(Ptr(b_mem_) + i * 200000, Ptr(a_mem_) + offset, sizes[i]), 0);
    offset += sizes[i];
  }
}

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

TEST_F(ShmTwoSidedTest, TooLongMessageFailsThatReceiveOnly) {
  Connect();
  std::memset(b_mem_.address, 0xAA, 1024);
  TransferRequest small, next;
  ASSERT_TRUE(b().PostRecv(b_mem_.address, 100, small).ok());
  ASSERT_TRUE(b().PostRecv(Ptr(b_mem_) + 512, 100, next).ok());
  FillPattern(a_mem_.address, 500, 4);
  TransferRequest send1, send2;
  ASSERT_TRUE(a().PostSend(a_mem_.address, 101, send1, 0).ok());
  ASSERT_TRUE(a().PostSend(a_mem_.address, 100, send2, 0).ok());
  Status failed = small.Wait(kWait);
  EXPECT_EQ(failed.code(), StatusCode::kInvalidArgument) << failed.ToString();
  EXPECT_TRUE(AllBytesAre(b_mem_.address, 100, 0xAA));  // nothing landed
  // The connection survives: the next message fills the next receive.
  ASSERT_TRUE(next.Wait(kWait).ok()) << next.Test().ToString();
  EXPECT_EQ(next.bytes(), 100u);
  EXPECT_EQ(std::memcmp(Ptr(b_mem_) + 512, a_mem_.address, 100), 0);
}

TEST_F(ShmTwoSidedTest, ReceivePostedAfterTheMessageArrivesStillGetsIt) {
  Connect();
  FillPattern(a_mem_.address, 64, 8);
  TransferRequest send, recv;
  ASSERT_TRUE(a().PostSend(a_mem_.address, 64, send, 0).ok());
  ASSERT_TRUE(send.Wait(kWait).ok());
  std::this_thread::sleep_for(milliseconds(100));  // the message waits at b
  ASSERT_TRUE(b().PostRecv(b_mem_.address, 64, recv).ok());
  ASSERT_TRUE(recv.Wait(kWait).ok()) << recv.Test().ToString();
  EXPECT_EQ(std::memcmp(b_mem_.address, a_mem_.address, 64), 0);
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
