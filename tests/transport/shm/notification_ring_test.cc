// The shm notification ring on its own (notification_ring.h): both sides
// map one memfd, as the two processes of a connection do. Order and bytes
// across many wrap-arounds, a full ring, when the sender is asked for a
// doorbell, and what the receiver does with a ring that holds nonsense.
#include "transport/shm/notification_ring.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "support/recording_sink.h"

namespace xfer::transport::shm {
namespace {

std::span<const uint8_t> AsBytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

class NotificationRingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ring = RingMapping::Create();
    ASSERT_TRUE(ring.ok()) << ring.status().ToString();
    inbound_ = std::make_unique<InboundRing>(std::move(*ring), sink_);
    outbound_ = std::make_unique<OutboundRing>(MapAgain());
  }

  // Another mapping of the receiver's ring, as the peer has.
  RingMapping MapAgain() {
    auto mapped = RingMapping::Map(UniqueFd(dup(inbound_->fd())));
    EXPECT_TRUE(mapped.ok()) << mapped.status().ToString();
    return mapped.ok() ? std::move(*mapped) : RingMapping();
  }

  xfer::testing::RecordingSink sink_;
  std::unique_ptr<InboundRing> inbound_;
  std::unique_ptr<OutboundRing> outbound_;
};

TEST_F(NotificationRingTest, NotificationsArriveWholeAndInOrderAcrossWrapArounds) {
  std::vector<std::string> sent;
  for (int round = 0; round < 10; ++round) {
    // Up to a full ring per round, of lengths 1..kMaxNotificationBytes.
    for (uint64_t i = 0; i < kRingSlots; ++i) {
      const size_t length = 1 + (sent.size() * 131) % kMaxNotificationBytes;
      std::string message(length, static_cast<char>('a' + sent.size() % 26));
      message.front() = static_cast<char>(sent.size());
      ASSERT_TRUE(outbound_->Push(AsBytes(message)).written) << sent.size();
      sent.push_back(message);
    }
    ASSERT_TRUE(inbound_->Drain().ok());
  }
  EXPECT_EQ(sink_.messages(), sent);
}

TEST_F(NotificationRingTest, AFullRingRefusesUntilTheReceiverDrainsIt) {
  for (uint64_t i = 0; i < kRingSlots; ++i) {
    ASSERT_TRUE(outbound_->Push(AsBytes(std::to_string(i))).written) << i;
  }
  const OutboundRing::Pushed full = outbound_->Push(AsBytes("one too many"));
  EXPECT_FALSE(full.written);
  EXPECT_TRUE(full.doorbell) << "a full ring must ask the receiver to drain it";
  ASSERT_TRUE(inbound_->Drain().ok());
  EXPECT_EQ(sink_.messages().size(), kRingSlots);
  EXPECT_TRUE(outbound_->Push(AsBytes("one too many")).written);
  ASSERT_TRUE(inbound_->Drain().ok());
  EXPECT_EQ(sink_.messages().back(), "one too many");
}

// No system call while the receiver polls; a doorbell for the first
// notification of a new ring (its reader may sleep already, armed on the
// rings it knew before this connection), for the first after it armed,
// and whenever the ring is half full.
TEST_F(NotificationRingTest, TheSenderRingsOnlyWhenArmedOrHalfFull) {
  EXPECT_TRUE(outbound_->Push(AsBytes("first of a new ring")).doorbell);
  ASSERT_TRUE(inbound_->Drain().ok());
  EXPECT_FALSE(outbound_->Push(AsBytes("polled")).doorbell);
  ASSERT_TRUE(inbound_->Drain().ok());
  ASSERT_TRUE(inbound_->Arm().ok());
  EXPECT_TRUE(outbound_->Push(AsBytes("after arming")).doorbell);
  EXPECT_FALSE(outbound_->Push(AsBytes("armed once only")).doorbell);
  ASSERT_TRUE(inbound_->Drain().ok());
  for (uint64_t i = 1; i < kRingSlots / 2; ++i) {
    EXPECT_FALSE(outbound_->Push(AsBytes("filling")).doorbell) << i;
  }
  EXPECT_TRUE(outbound_->Push(AsBytes("half full")).doorbell);
}

// Arming hands over what is already there: a notification published just
// before the arm is not left waiting for a doorbell that never comes.
TEST_F(NotificationRingTest, ArmingDeliversWhatIsAlreadyPublished) {
  ASSERT_TRUE(outbound_->Push(AsBytes("early")).written);
  ASSERT_TRUE(inbound_->Arm().ok());
  EXPECT_EQ(sink_.messages(), std::vector<std::string>{"early"});
}

TEST_F(NotificationRingTest, ASinkThatRefusesKeepsTheNotificationAndFailsTheRing) {
  ASSERT_TRUE(outbound_->Push(AsBytes("refused")).written);
  sink_.set_refuse(true);
  EXPECT_EQ(inbound_->Drain().code(), StatusCode::kResourceExhausted);
  sink_.set_refuse(false);
  // The ring is not read again: the connection is failing.
  EXPECT_EQ(inbound_->Drain().code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(sink_.messages().empty());
}

TEST_F(NotificationRingTest, APeerPublishingMoreThanTheRingHoldsIsAProtocolError) {
  RingMapping peer = MapAgain();
  std::atomic_ref<uint64_t>(peer.tail()).store(kRingSlots + 1);
  EXPECT_EQ(inbound_->Drain().code(), StatusCode::kProtocolError);
  EXPECT_EQ(inbound_->Arm().code(), StatusCode::kProtocolError);
  EXPECT_TRUE(sink_.messages().empty());
}

TEST_F(NotificationRingTest, ASlotLengthOutsideOneToTheLimitIsAProtocolError) {
  for (const uint32_t length : {uint32_t{0}, uint32_t{kMaxNotificationBytes + 1}, UINT32_MAX}) {
    SetUp();  // a fresh ring
    ASSERT_TRUE(outbound_->Push(AsBytes("x")).written);
    RingMapping peer = MapAgain();
    peer.length(0) = length;
    const Status drained = inbound_->Drain();
    EXPECT_EQ(drained.code(), StatusCode::kProtocolError) << length;
    EXPECT_NE(drained.message().find(std::to_string(length)), std::string::npos)
        << drained.ToString();
  }
  EXPECT_TRUE(sink_.messages().empty());
}

TEST_F(NotificationRingTest, AFileOfAnotherSizeIsNotMapped) {
  UniqueFd fd(memfd_create("not-a-ring", MFD_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  ASSERT_EQ(ftruncate(fd.get(), 4096), 0);
  EXPECT_EQ(RingMapping::Map(std::move(fd)).status().code(), StatusCode::kProtocolError);
}

}  // namespace
}  // namespace xfer::transport::shm
