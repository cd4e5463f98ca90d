// Two-sided SEND/RECV with the tcp transport's semantics: receives filled
// in posting order, messages longer than a receive-slot cut and put back
// together, a too-long message failing only its receive, a message waiting
// for a late receive, and no receive at all reported within io_timeout.
// Needs an RDMA device (skips otherwise).
#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "verbs_test_util.h"

namespace xfer::transport::verbs::testing {
namespace {

using namespace std::chrono_literals;
using xfer::testing::ConnectPair;
using xfer::testing::EndpointPair;

constexpr size_t kRegion = 1 << 20;

class VerbsSendRecvTest : public VerbsDeviceTest {
 protected:
  void Connect(uint32_t streams = 1, std::chrono::milliseconds io_timeout = 5000ms,
               uint32_t target_slot_bytes = 4096) {
    send_ = pair_.initiator_memory.Add(kRegion, Access::kNone);
    recv_ = pair_.target_memory.Add(kRegion, Access::kNone);
    VerbsTransportOptions target_options = SideOptions(false);
    // Small receive slots: every message above 4 KiB travels in pieces.
    target_options.recv_slot_bytes = target_slot_bytes;
    target_options.recv_slots = 8;
    VerbsTransport initiator(SideOptions(true));
    VerbsTransport target(target_options);
    Status status = ConnectPair(initiator, target, pair_, streams, io_timeout);
    ASSERT_TRUE(status.ok()) << status.ToString();
  }

  EndpointPair pair_;
  LocalRegionView send_;
  LocalRegionView recv_;
};

TEST_F(VerbsSendRecvTest, SmallMessageLandsInThePostedReceive) {
  Connect();
  FillPattern(Bytes(send_), 100, 1);
  std::memset(Bytes(recv_), 0xee, 4096);
  TransferRequest recv;
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(recv_), 4096, recv).ok());
  TransferRequest send;
  ASSERT_TRUE(pair_.initiator->PostSend(Bytes(send_), 100, send, 0).ok());
  ASSERT_TRUE(send.Wait(kWait).ok()) << send.Test().ToString();
  EXPECT_EQ(send.bytes(), 100u);
  ASSERT_TRUE(recv.Wait(kWait).ok()) << recv.Test().ToString();
  EXPECT_EQ(recv.bytes(), 100u);
  EXPECT_EQ(FirstPatternMismatch(Bytes(recv_), 100, 1), 100u);
  EXPECT_EQ(Bytes(recv_)[100], 0xee);
}

TEST_F(VerbsSendRecvTest, LargeMessageIsCutIntoPiecesAndPutBackTogether) {
  Connect();
  // 100 pieces of 4 KiB through 8 receive slots: the slots are reused.
  const size_t size = 100 * 4096 - 17;
  FillPattern(Bytes(send_), size, 2);
  TransferRequest recv;
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(recv_), kRegion, recv).ok());
  TransferRequest send;
  ASSERT_TRUE(pair_.initiator->PostSend(Bytes(send_), size, send, 0).ok());
  ASSERT_TRUE(send.Wait(kWait).ok()) << send.Test().ToString();
  ASSERT_TRUE(recv.Wait(kWait).ok()) << recv.Test().ToString();
  EXPECT_EQ(recv.bytes(), size);
  EXPECT_EQ(FirstPatternMismatch(Bytes(recv_), size, 2), size);
}

TEST_F(VerbsSendRecvTest, ReceivesAreFilledInPostingOrder) {
  Connect();
  constexpr int kMessages = 20;
  TransferRequest recvs[kMessages];
  for (int i = 0; i < kMessages; ++i) {
    ASSERT_TRUE(pair_.target->PostRecv(Bytes(recv_) + i * 16384, 16384, recvs[i]).ok());
  }
  TransferRequest sends[kMessages];
  for (int i = 0; i < kMessages; ++i) {
    const size_t size = 1000 + static_cast<size_t>(i) * 500;  // some in pieces
    FillPattern(Bytes(send_) + i * 16384, size, static_cast<uint32_t>(10 + i));
    ASSERT_TRUE(pair_.initiator->PostSend(Bytes(send_) + i * 16384, size, sends[i], 0).ok());
  }
  for (int i = 0; i < kMessages; ++i) {
    ASSERT_TRUE(sends[i].Wait(kWait).ok());
    ASSERT_TRUE(recvs[i].Wait(kWait).ok()) << recvs[i].Test().ToString();
    const size_t size = 1000 + static_cast<size_t>(i) * 500;
    EXPECT_EQ(recvs[i].bytes(), size);
    EXPECT_EQ(FirstPatternMismatch(Bytes(recv_) + i * 16384, size, static_cast<uint32_t>(10 + i)),
              size)
        << "message " << i;
  }
}

TEST_F(VerbsSendRecvTest, TooLongMessageFailsOnlyItsReceive) {
  Connect();
  FillPattern(Bytes(send_), 10000, 3);
  std::memset(Bytes(recv_), 0xee, 2 * 4096);
  TransferRequest small;
  TransferRequest next;
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(recv_), 100, small).ok());
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(recv_) + 4096, 4096, next).ok());
  TransferRequest send;
  ASSERT_TRUE(pair_.initiator->PostSend(Bytes(send_), 10000, send, 0).ok());
  EXPECT_TRUE(send.Wait(kWait).ok()) << "the sender does not learn of the receiver's failure";
  ASSERT_TRUE(small.done() || small.Wait(kWait).code() != StatusCode::kTimeout);
  EXPECT_EQ(small.Test().code(), StatusCode::kInvalidArgument) << small.Test().ToString();
  EXPECT_EQ(Bytes(recv_)[0], 0xee) << "a dropped message writes nothing";
  // The connection lives on: the next message fills the next receive.
  TransferRequest second;
  ASSERT_TRUE(pair_.initiator->PostSend(Bytes(send_), 50, second, 0).ok());
  ASSERT_TRUE(next.Wait(kWait).ok()) << next.Test().ToString();
  EXPECT_EQ(next.bytes(), 50u);
  EXPECT_EQ(FirstPatternMismatch(Bytes(recv_) + 4096, 50, 3), 50u);
}

TEST_F(VerbsSendRecvTest, MessageWaitsForALateReceive) {
  Connect();
  // Longer than the 8 slots hold: the sender's NIC retries (RNR) until the
  // receive is posted and the slots drain.
  const size_t size = 20 * 4096;
  FillPattern(Bytes(send_), size, 4);
  TransferRequest send;
  ASSERT_TRUE(pair_.initiator->PostSend(Bytes(send_), size, send, 0).ok());
  std::this_thread::sleep_for(300ms);
  TransferRequest recv;
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(recv_), kRegion, recv).ok());
  ASSERT_TRUE(recv.Wait(kWait).ok()) << recv.Test().ToString();
  ASSERT_TRUE(send.Wait(kWait).ok()) << send.Test().ToString();
  EXPECT_EQ(FirstPatternMismatch(Bytes(recv_), size, 4), size);
}

TEST_F(VerbsSendRecvTest, SendsOnSeveralStreamsAllArrive) {
  Connect(4);
  constexpr int kMessages = 8;
  TransferRequest recvs[kMessages];
  for (auto& recv : recvs) {
    const size_t i = static_cast<size_t>(&recv - recvs);
    ASSERT_TRUE(pair_.target->PostRecv(Bytes(recv_) + i * 32768, 32768, recv).ok());
  }
  TransferRequest sends[kMessages];
  for (int i = 0; i < kMessages; ++i) {
    // Every message starts with its index, so each can be found wherever it landed.
    uint8_t* data = Bytes(send_) + i * 32768;
    std::memset(data, i, 20000);
    ASSERT_TRUE(
        pair_.initiator->PostSend(data, 20000, sends[i], static_cast<uint32_t>(i)).ok());
  }
  std::vector<int> seen(kMessages, 0);
  for (int i = 0; i < kMessages; ++i) {
    ASSERT_TRUE(sends[i].Wait(kWait).ok());
    ASSERT_TRUE(recvs[i].Wait(kWait).ok()) << recvs[i].Test().ToString();
    ASSERT_EQ(recvs[i].bytes(), 20000u);
    const uint8_t* got = Bytes(recv_) + i * 32768;
    for (size_t k = 0; k < 20000; ++k) ASSERT_EQ(got[k], got[0]) << "receive " << i;
    ASSERT_LT(got[0], kMessages);
    ++seen[got[0]];
  }
  EXPECT_EQ(seen, std::vector<int>(kMessages, 1));
}

TEST_F(VerbsSendRecvTest, NoReceiveWithinTheTimeoutFailsTheConnection) {
  Connect(1, 500ms);
  TransferRequest send;
  ASSERT_TRUE(pair_.initiator->PostSend(Bytes(send_), 64, send, 0).ok());
  // The message left (it waits in the target's receive slot), so the send
  // succeeds; the target gives up on it after io_timeout.
  ASSERT_TRUE(send.Wait(kWait).ok()) << send.Test().ToString();
  std::this_thread::sleep_for(1500ms);
  TransferRequest recv;
  Status posted = pair_.target->PostRecv(Bytes(recv_), 4096, recv);
  EXPECT_EQ(posted.code(), StatusCode::kConnectionLost) << posted.ToString();
  EXPECT_NE(posted.message().find("no receive was posted"), std::string::npos)
      << posted.ToString();
  if (posted.ok()) (void)recv.Wait(kWait);
}

TEST_F(VerbsSendRecvTest, OversizedAndClosedPostsAreRefused) {
  Connect();
  TransferRequest request;
  EXPECT_EQ(pair_.initiator->PostSend(Bytes(send_), (size_t{1} << 30) + 1, request, 0).code(),
            StatusCode::kInvalidArgument);
  TransferRequest recv;
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(recv_), 64, recv).ok());
  pair_.target->Close();
  ASSERT_TRUE(recv.done()) << "Close finishes posted receives";
  EXPECT_EQ(recv.Test().code(), StatusCode::kConnectionLost);
  EXPECT_EQ(pair_.target->PostRecv(Bytes(recv_), 64, recv).code(), StatusCode::kConnectionLost);
  EXPECT_EQ(pair_.target->PostSend(Bytes(recv_), 64, recv, 0).code(), StatusCode::kConnectionLost);
}

}  // namespace
}  // namespace xfer::transport::verbs::testing
