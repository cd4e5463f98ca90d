// A StripedEndpoint over two real tcp rails (loopback): what each rail
// carries, and that striping keeps every byte and the callers' requests
// whole. The conformance suites run the Endpoint contract over it too
// ("tcp_2rails").
#include "core/striped_endpoint.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "support/byte_pattern.h"
#include "support/rail_pair.h"
#include "support/test_memory.h"

namespace xfer::core {
namespace {

using namespace std::chrono_literals;
using xfer::testing::Addr;
using xfer::testing::Bytes;

constexpr size_t kRegion = size_t{64} << 20;

class StripedEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    local_ = pair_.initiator_memory.Add(kRegion, Access::kRemoteReadWrite);
    remote_ = pair_.target_memory.Add(kRegion, Access::kRemoteReadWrite);
    auto transports = xfer::testing::CreateTransportPair("tcp");
    ASSERT_TRUE(transports.ok()) << transports.status().ToString();
    initiator_transport_ = std::move(transports->initiator);
    target_transport_ = std::move(transports->target);
    const Status connected = xfer::testing::ConnectRailPair(
        *initiator_transport_, *target_transport_, pair_, 2, 2, 5000ms);
    ASSERT_TRUE(connected.ok()) << connected.ToString();
  }
  StripedEndpoint& striped() { return static_cast<StripedEndpoint&>(*pair_.initiator); }

  std::unique_ptr<transport::Transport> initiator_transport_;
  std::unique_ptr<transport::Transport> target_transport_;
  xfer::testing::EndpointPair pair_;
  transport::LocalRegionView local_;
  transport::LocalRegionView remote_;
};

// Two rails over loopback split a large transfer, and every byte lands.
// Both rails here share this host's CPUs, which bind them, not links: each
// must carry a good share (a quarter, at least), but the 40-60 % split of
// equal links is measured where links bind (the namespace and Soft-RoCE
// runs).
TEST_F(StripedEndpointTest, ALargeWriteSplitsEvenlyOverTwoEqualRailsAndEveryByteLands) {
  xfer::testing::FillPattern(Bytes(local_), kRegion, 5);
  std::memset(Bytes(remote_), 0, kRegion);
  for (size_t offset = 0; offset < kRegion; offset += size_t{8} << 20) {
    const TransferEntry entry{Bytes(local_) + offset, Addr(Bytes(remote_)) + offset,
                              size_t{8} << 20};
    TransferRequest request;
    ASSERT_TRUE(pair_.initiator->PostWrite({&entry, 1}, request, 0).ok());
    ASSERT_TRUE(request.Wait(10s).ok()) << request.Test().ToString();
    EXPECT_EQ(request.bytes(), size_t{8} << 20);
  }
  EXPECT_EQ(xfer::testing::FirstPatternMismatch(Bytes(remote_), kRegion, 5), kRegion);
  const uint64_t rail0 = striped().Stats(0).bytes;
  const uint64_t rail1 = striped().Stats(1).bytes;
  EXPECT_EQ(rail0 + rail1, kRegion);
  EXPECT_GE(rail0, kRegion / 4);
  EXPECT_GE(rail1, kRegion / 4);
  EXPECT_EQ(striped().Stats(0).in_flight + striped().Stats(1).in_flight, 0u);
}

// Small requests are not cut: each is one slice on one rail.
TEST_F(StripedEndpointTest, SmallRequestsStayWholeAndAReadStripesLikeAWrite) {
  for (int i = 0; i < 50; ++i) {
    const TransferEntry entry{Bytes(local_), Addr(Bytes(remote_)), 4096};
    TransferRequest request;
    ASSERT_TRUE(pair_.initiator->PostWrite({&entry, 1}, request, 1).ok());
    ASSERT_TRUE(request.Wait(10s).ok());
  }
  EXPECT_EQ(striped().Stats(0).slices + striped().Stats(1).slices, 50u);
  // A batch of entries is cut across entry boundaries.
  xfer::testing::FillPattern(Bytes(remote_), kRegion, 9);
  std::memset(Bytes(local_), 0, kRegion);
  std::vector<TransferEntry> batch;
  for (size_t i = 0; i < 16; ++i) {
    const size_t offset = i * (size_t{1} << 20);
    batch.push_back({Bytes(local_) + offset, Addr(Bytes(remote_)) + offset, (size_t{1} << 20) - 7});
  }
  TransferRequest read;
  ASSERT_TRUE(pair_.initiator->PostRead(batch, read, 0).ok());
  ASSERT_TRUE(read.Wait(10s).ok()) << read.Test().ToString();
  EXPECT_EQ(read.bytes(), 16 * ((size_t{1} << 20) - 7));
  for (size_t i = 0; i < 16; ++i) {
    const size_t offset = i * (size_t{1} << 20);
    ASSERT_EQ(std::memcmp(Bytes(local_) + offset, Bytes(remote_) + offset, (size_t{1} << 20) - 7),
              0)
        << "entry " << i;
    EXPECT_EQ(Bytes(local_)[offset + (size_t{1} << 20) - 7], 0) << "read past entry " << i;
  }
}

// A connection that closes fails what is in flight on every rail, and the
// caller's request once, with kConnectionLost.
TEST_F(StripedEndpointTest, ClosingFailsTheStripedRequestOnce) {
  pair_.target->Close();
  const TransferEntry entry{Bytes(local_), Addr(Bytes(remote_)), size_t{16} << 20};
  TransferRequest request;
  const Status posted = pair_.initiator->PostWrite({&entry, 1}, request, 0);
  if (posted.ok()) {
    EXPECT_EQ(request.Wait(10s).code(), StatusCode::kConnectionLost);
  } else {
    EXPECT_EQ(posted.code(), StatusCode::kConnectionLost);
    EXPECT_FALSE(xfer::internal::RequestAccess::InFlight(request));
  }
  pair_.initiator->Close();
  EXPECT_EQ(pair_.initiator->PostWrite({&entry, 1}, request, 0).code(),
            StatusCode::kConnectionLost);
}

}  // namespace
}  // namespace xfer::core
