// Endpoint::PostNotify on every transport: a notification reaches the
// peer's sink only after the bytes of the requests posted before it on its
// stream, whole, in order, and never from a connection that failed first.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "support/byte_pattern.h"
#include "support/endpoint_pair.h"
#include "support/rail_pair.h"
#include "support/test_memory.h"
#include "support/transport_capabilities.h"
#include "transport/transport_registry.h"

namespace xfer::transport {
namespace {

using namespace std::chrono_literals;
using xfer::testing::Addr;
using xfer::testing::Bytes;
using xfer::testing::ConnectRailPair;
using xfer::testing::EndpointPair;
using xfer::testing::FillPattern;
using xfer::testing::FirstPatternMismatch;

constexpr auto kNotifyWait = 10s;
constexpr auto kNotifyIoTimeout = 1000ms;
constexpr size_t kBlock = size_t{256} << 10;
constexpr size_t kBlocks = 16;
constexpr uint32_t kNotifyStreams = 2;

uint32_t BlockSeed(size_t block, uint32_t base) { return base + static_cast<uint32_t>(block); }

std::span<const uint8_t> AsBytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

class NotificationConformanceTest : public ::testing::TestWithParam<std::string> {
 protected:
  // The transport under test, and over how many rails (support/rail_pair.h).
  std::string transport() const { return xfer::testing::RailCase::Parse(GetParam()).transport; }
  uint32_t rails() const { return xfer::testing::RailCase::Parse(GetParam()).rails; }

  void SetUp() override {
    local_ = pair_.initiator_memory.Add(kBlock * kBlocks, Access::kRemoteReadWrite);
    remote_ = pair_.target_memory.Add(kBlock * kBlocks, Access::kRemoteReadWrite);
    auto transports = xfer::testing::CreateTransportPair(transport());
    ASSERT_TRUE(transports.ok()) << transports.status().ToString();
    initiator_transport_ = std::move(transports->initiator);
    target_transport_ = std::move(transports->target);
    if (Status usable = initiator_transport_->Usable(); !usable.ok()) {
      GTEST_SKIP() << transport() << " is not usable here: " << usable.ToString();
    }
    ASSERT_TRUE(initiator_transport_->capabilities().notifications)
        << GetParam() << " must carry notifications";
    const Status connected = ConnectRailPair(*initiator_transport_, *target_transport_, pair_, rails(),
                                         kNotifyStreams, kNotifyIoTimeout);
    ASSERT_TRUE(connected.ok()) << connected.ToString();
  }

  Status Notify(const std::string& message, uint32_t stream = 0) {
    TransferRequest request;
    Status posted = pair_.initiator->PostNotify(AsBytes(message), request, stream);
    if (!posted.ok()) return posted;
    return request.Wait(kNotifyWait);
  }

  // What the target's sink received once `count` notifications arrived,
  // or at kNotifyWait (then fewer). Reads as an engine does when it waits
  // in GetNotifications: AwaitNotifications, then a wait on the sink (a
  // transport that leaves notifications in shared memory delivers them
  // then; the others from their own threads).
  std::vector<std::string> Received(size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + kNotifyWait;
    std::vector<std::string> got;
    do {
      pair_.target->AwaitNotifications();
      got = pair_.target_notes.WaitFor(count, 20ms);
    } while (got.size() < count && std::chrono::steady_clock::now() < deadline);
    return got;
  }

  std::unique_ptr<Transport> initiator_transport_;
  std::unique_ptr<Transport> target_transport_;
  EndpointPair pair_;
  LocalRegionView local_;
  LocalRegionView remote_;
};

// The sink looks at the target's memory at the moment each notification
// arrives: block i must hold WRITE i's bytes then, though the initiator
// posts notification i right behind WRITE i without waiting for it.
TEST_P(NotificationConformanceTest, ANotificationArrivesOnlyAfterTheBytesWrittenBeforeIt) {
  std::memset(Bytes(remote_), 0, kBlock * kBlocks);
  for (size_t i = 0; i < kBlocks; ++i) FillPattern(Bytes(local_) + i * kBlock, kBlock, BlockSeed(i, 100));
  std::atomic<int> early{0};
  pair_.target_notes.set_inspector([&](const std::string& message) {
    const size_t i = std::stoul(message);
    if (FirstPatternMismatch(Bytes(remote_) + i * kBlock, kBlock, BlockSeed(i, 100)) != kBlock) ++early;
  });
  std::vector<TransferRequest> writes(kBlocks);
  std::vector<TransferRequest> notes(kBlocks);
  for (size_t i = 0; i < kBlocks; ++i) {
    const TransferEntry entry{Bytes(local_) + i * kBlock, Addr(Bytes(remote_)) + i * kBlock,
                              kBlock};
    ASSERT_TRUE(pair_.initiator->PostWrite({&entry, 1}, writes[i], 1).ok());
    const std::string message = std::to_string(i);
    ASSERT_TRUE(pair_.initiator->PostNotify(AsBytes(message), notes[i], 1).ok());
  }
  for (size_t i = 0; i < kBlocks; ++i) {
    EXPECT_TRUE(writes[i].Wait(kNotifyWait).ok());
    EXPECT_TRUE(notes[i].Wait(kNotifyWait).ok());
  }
  const auto got = Received(kBlocks);
  ASSERT_EQ(got.size(), kBlocks);
  for (size_t i = 0; i < kBlocks; ++i) EXPECT_EQ(got[i], std::to_string(i)) << "out of order";
  EXPECT_EQ(early.load(), 0) << "notifications overtook their data";
}

// READ's mirror: once notification i arrives, READ i has read block i, so
// the target may overwrite it; the initiator must then hold the old bytes.
TEST_P(NotificationConformanceTest, ANotificationArrivesOnlyAfterTheBytesReadBeforeIt) {
  for (size_t i = 0; i < kBlocks; ++i) FillPattern(Bytes(remote_) + i * kBlock, kBlock, BlockSeed(i, 300));
  std::memset(Bytes(local_), 0, kBlock * kBlocks);
  pair_.target_notes.set_inspector([&](const std::string& message) {
    std::memset(Bytes(remote_) + std::stoul(message) * kBlock, 0xff, kBlock);
  });
  std::vector<TransferRequest> reads(kBlocks);
  std::vector<TransferRequest> notes(kBlocks);
  for (size_t i = 0; i < kBlocks; ++i) {
    const TransferEntry entry{Bytes(local_) + i * kBlock, Addr(Bytes(remote_)) + i * kBlock,
                              kBlock};
    ASSERT_TRUE(pair_.initiator->PostRead({&entry, 1}, reads[i], 0).ok());
    const std::string message = std::to_string(i);
    ASSERT_TRUE(pair_.initiator->PostNotify(AsBytes(message), notes[i], 0).ok());
  }
  for (size_t i = 0; i < kBlocks; ++i) {
    ASSERT_TRUE(reads[i].Wait(kNotifyWait).ok());
    ASSERT_TRUE(notes[i].Wait(kNotifyWait).ok());
  }
  ASSERT_EQ(Received(kBlocks).size(), kBlocks);
  for (size_t i = 0; i < kBlocks; ++i) {
    EXPECT_EQ(FirstPatternMismatch(Bytes(local_) + i * kBlock, kBlock, BlockSeed(i, 300)), kBlock)
        << "block " << i << " was read after its notification";
  }
}

TEST_P(NotificationConformanceTest, EveryByteOfTheLongestNotificationArrives) {
  std::string longest(kMaxNotificationBytes, '\0');
  for (size_t i = 0; i < longest.size(); ++i) longest[i] = static_cast<char>(i * 7);
  ASSERT_TRUE(Notify(longest).ok());
  ASSERT_TRUE(Notify(std::string(1, '\0')).ok());
  const auto got = Received(2);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], longest);
  EXPECT_EQ(got[1], std::string(1, '\0'));
  EXPECT_TRUE(pair_.initiator_notes.messages().empty()) << "delivered to the sender";
}

TEST_P(NotificationConformanceTest, EmptyAndOverlongNotificationsAreRefusedUntouched) {
  TransferRequest request;
  const std::string overlong(kMaxNotificationBytes + 1, 'x');
  EXPECT_EQ(pair_.initiator->PostNotify(AsBytes(overlong), request, 0).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(pair_.initiator->PostNotify({}, request, 0).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(request.Test().ok()) << "a refused post touched its request";
  ASSERT_TRUE(Notify("after").ok());
  EXPECT_EQ(Received(1), std::vector<std::string>{"after"});
}

// An engine whose inbox is full refuses; the transport must then fail the
// connection rather than lose the notification silently.
TEST_P(NotificationConformanceTest, ASinkThatRefusesFailsTheConnection) {
  pair_.target_notes.set_refuse(true);
  (void)Notify("refused");
  const auto deadline = std::chrono::steady_clock::now() + kNotifyWait;
  Status status;
  do {
    std::this_thread::sleep_for(10ms);
    status = Notify("next");
  } while (status.ok() && std::chrono::steady_clock::now() < deadline);
  EXPECT_FALSE(status.ok()) << "the connection outlived a refused notification";
  EXPECT_TRUE(pair_.target_notes.messages().empty());
}

TEST_P(NotificationConformanceTest, ANotificationAfterALocalCloseFailsWithConnectionLost) {
  pair_.initiator->Close();
  TransferRequest request;
  EXPECT_EQ(pair_.initiator->PostNotify(AsBytes(std::string("late")), request, 0).code(),
            StatusCode::kConnectionLost);
}

INSTANTIATE_TEST_SUITE_P(Transports, NotificationConformanceTest,
                         ::testing::ValuesIn(xfer::testing::ConformanceCases()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace xfer::transport
