// The fixture of the failover tests (failover_test.cc, rail_recovery_test.cc):
// a StripedEndpoint over two real rails of a transport that stripes (tcp on
// loopback; verbs where an RDMA device is, as in the Soft-RoCE VM), one of
// the initiator's rails behind a fault-injecting wrapper
// (support/faulty_endpoint.h).
#ifndef XFER_TESTS_CORE_FAILOVER_FIXTURE_H_
#define XFER_TESTS_CORE_FAILOVER_FIXTURE_H_

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/striped_endpoint.h"
#include "support/byte_pattern.h"
#include "support/endpoint_pair.h"
#include "support/faulty_endpoint.h"
#include "support/rail_pair.h"
#include "support/test_memory.h"
#include "support/transport_capabilities.h"

namespace xfer::core {

using namespace std::chrono_literals;
using xfer::testing::Addr;
using xfer::testing::Bytes;
using xfer::testing::FaultyEndpoint;

inline constexpr size_t kRegion = size_t{64} << 20;
inline constexpr size_t kRequest = size_t{8} << 20;  // 32 slices: both rails get some

class FailoverFixture : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto transports = xfer::testing::CreateTransportPair(GetParam());
    ASSERT_TRUE(transports.ok()) << transports.status().ToString();
    initiator_transport_ = std::move(transports->initiator);
    target_transport_ = std::move(transports->target);
    // verbs without an RDMA device (this host, not the Soft-RoCE VM).
    if (Status usable = initiator_transport_->Usable(); !usable.ok()) {
      GTEST_SKIP() << GetParam() << " is not usable here: " << usable.ToString();
    }
  }
  // Two rails, rail `faulty` of the initiator's behind the wrapper.
  void Connect(uint32_t faulty, FaultyEndpoint::Faults faults,
               StripedEndpoint::Options options = {}) {
    local_ = pair_.initiator_memory.Add(kRegion, Access::kRemoteReadWrite);
    remote_ = pair_.target_memory.Add(kRegion, Access::kRemoteReadWrite);
    const Status connected = xfer::testing::ConnectPair(*initiator_transport_, *target_transport_,
                                                        pair_, 2, 5000ms, 2);
    ASSERT_TRUE(connected.ok()) << connected.ToString();
    auto wrapped =
        std::make_unique<FaultyEndpoint>(std::move(pair_.initiator_rails[faulty]), faults);
    faulty_ = wrapped.get();
    pair_.initiator_rails[faulty] = std::move(wrapped);
    pair_.initiator = xfer::testing::Striped(std::move(pair_.initiator_rails), 2, options);
    pair_.target = xfer::testing::Striped(std::move(pair_.target_rails), 2, options);
  }
  StripedEndpoint& striped() { return static_cast<StripedEndpoint&>(*pair_.initiator); }
  StripedEndpoint& target_striped() { return static_cast<StripedEndpoint&>(*pair_.target); }
  // The slice timeout of the silence tests: Soft-RoCE under emulation (the
  // VM's verbs) pauses for up to a second now and then while it
  // retransmits, which a healthy rail must not be taken down for.
  std::chrono::milliseconds SliceTimeout() const {
    return GetParam() == "verbs" ? 2000ms : 300ms;
  }
  TransferEntry Entry(size_t offset, size_t length = kRequest) {
    return {Bytes(local_) + offset, Addr(Bytes(remote_)) + offset, length};
  }

  // Writes the first `bytes` of the region (a multiple of kRequest) in
  // kRequest requests, each of which must complete OK and whole, and
  // checks every byte at the peer.
  void WriteAll(uint32_t seed, size_t bytes = kRegion) {
    xfer::testing::FillPattern(Bytes(local_), bytes, seed);
    std::memset(Bytes(remote_), 0, bytes);
    for (size_t offset = 0; offset < bytes; offset += kRequest) {
      const TransferEntry entry = Entry(offset);
      TransferRequest request;
      ASSERT_TRUE(pair_.initiator->PostWrite({&entry, 1}, request, 0).ok());
      ASSERT_TRUE(request.Wait(10s).ok()) << offset << ": " << request.Test().ToString();
      EXPECT_EQ(request.bytes(), kRequest);
    }
    EXPECT_EQ(xfer::testing::FirstPatternMismatch(Bytes(remote_), bytes, seed), bytes);
  }

  // Posts the whole region as kRequest requests of `op` over two streams,
  // loses the faulty rail after the third is posted (so that requests are
  // in flight on it), then waits for each to complete OK and whole.
  void MoveAllLosingTheRailMidStream(OpCode op) {
    std::vector<TransferRequest> requests(kRegion / kRequest);
    for (size_t i = 0; i < requests.size(); ++i) {
      const TransferEntry entry = Entry(i * kRequest);
      const auto stream = static_cast<uint32_t>(i % 2);
      const Status posted = op == OpCode::kWrite
                                ? pair_.initiator->PostWrite({&entry, 1}, requests[i], stream)
                                : pair_.initiator->PostRead({&entry, 1}, requests[i], stream);
      ASSERT_TRUE(posted.ok()) << i << ": " << posted.ToString();
      if (i == 2) faulty_->Lose();
    }
    for (size_t i = 0; i < requests.size(); ++i) {
      ASSERT_TRUE(requests[i].Wait(10s).ok()) << i << ": " << requests[i].Test().ToString();
      EXPECT_EQ(requests[i].bytes(), kRequest) << i;
    }
  }

  std::unique_ptr<transport::Transport> initiator_transport_;
  std::unique_ptr<transport::Transport> target_transport_;
  xfer::testing::EndpointPair pair_;
  transport::LocalRegionView local_;
  transport::LocalRegionView remote_;
  FaultyEndpoint* faulty_ = nullptr;
};

// Every transport of this build that stripes over several rails.
inline std::vector<std::string> RailTransports() {
  std::vector<std::string> names;
  for (const std::string& name : xfer::testing::BuiltTransports()) {
    if (xfer::testing::CapabilitiesOf(name).max_rails > 1) names.push_back(name);
  }
  return names;
}

}  // namespace xfer::core

#endif  // XFER_TESTS_CORE_FAILOVER_FIXTURE_H_
