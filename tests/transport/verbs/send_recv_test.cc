// Two-sided SEND/RECV, beyond the conformance suite (tests/conformance/):
// messages longer than a receive slot cut and put back together, sends on
// several streams, no receive at all reported within io_timeout, oversized
// posts. Needs an RDMA device (skips otherwise).
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

constexpr size_t kSendRecvRegion = 1 << 20;

class VerbsSendRecvTest : public VerbsDeviceTest {
 protected:
  void Connect(uint32_t streams = 1, std::chrono::milliseconds io_timeout = 5000ms,
               uint32_t target_slot_bytes = 4096,
               uint64_t registration_piece = kDefaultRegistrationPieceBytes) {
    send_ = pair_.initiator_memory.Add(kSendRecvRegion, Access::kNone);
    recv_ = pair_.target_memory.Add(kSendRecvRegion, Access::kNone);
    VerbsTransportOptions target_options = SideOptions(false);
    // Small receive slots: every message above 4 KiB travels in pieces.
    target_options.recv_slot_bytes = target_slot_bytes;
    target_options.recv_slots = 8;
    VerbsTransportOptions initiator_options = SideOptions(true);
    initiator_options.registration_piece_bytes = registration_piece;
    VerbsTransport initiator(initiator_options);
    VerbsTransport target(target_options);
    Status status = ConnectPair(initiator, target, pair_, streams, io_timeout);
    ASSERT_TRUE(status.ok()) << status.ToString();
  }

  EndpointPair pair_;
  LocalRegionView send_;
  LocalRegionView recv_;
};

TEST_F(VerbsSendRecvTest, LargeMessageIsCutIntoPiecesAndPutBackTogether) {
  Connect();
  // 100 pieces of 4 KiB through 8 receive slots: the slots are reused.
  const size_t size = 100 * 4096 - 17;
  FillPattern(Bytes(send_), size, 2);
  TransferRequest recv;
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(recv_), kSendRecvRegion, recv).ok());
  TransferRequest send;
  ASSERT_TRUE(pair_.initiator->PostSend(Bytes(send_), size, send, 0).ok());
  ASSERT_TRUE(send.Wait(kWait).ok()) << send.Test().ToString();
  ASSERT_TRUE(recv.Wait(kWait).ok()) << recv.Test().ToString();
  EXPECT_EQ(recv.bytes(), size);
  EXPECT_EQ(FirstPatternMismatch(Bytes(recv_), size, 2), size);
}

// The sender's region registered in pieces of 64 KiB: a message from an
// odd offset runs across six of them, and is also cut where each ends
// (the receiver puts pieces of any length back together).
TEST_F(VerbsSendRecvTest, AMessageAcrossRegistrationPiecesArrivesWhole) {
  Connect(1, 5000ms, 4096, 64 << 10);
  const size_t size = 100 * 4096 - 17;
  uint8_t* data = Bytes(send_) + 1000;
  FillPattern(data, size, 5);
  TransferRequest recv;
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(recv_), kSendRecvRegion, recv).ok());
  TransferRequest send;
  ASSERT_TRUE(pair_.initiator->PostSend(data, size, send, 0).ok());
  ASSERT_TRUE(send.Wait(kWait).ok()) << send.Test().ToString();
  ASSERT_TRUE(recv.Wait(kWait).ok()) << recv.Test().ToString();
  EXPECT_EQ(recv.bytes(), size);
  EXPECT_EQ(FirstPatternMismatch(Bytes(recv_), size, 5), size);
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
