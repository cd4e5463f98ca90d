// WRITE and READ through two real tcp endpoints, beyond the conformance
// suite (tests/conformance/): many threads, interleaved small ops, both
// directions at once, over one and several streams.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "support/endpoint_pair.h"
#include "tcp_test_util.h"

namespace xfer::transport::tcp::testing {
namespace {

using xfer::testing::ConnectPair;
using xfer::testing::EndpointPair;

constexpr size_t kOneSidedRegion = size_t{16} << 20;

class TcpOneSidedTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    a_ = pair_.initiator_memory.Add(kOneSidedRegion, Access::kRemoteReadWrite);
    b_ = pair_.target_memory.Add(kOneSidedRegion, Access::kRemoteReadWrite);
    ASSERT_TRUE(ConnectPair(transport_, transport_, pair_, GetParam()).ok());
  }

  TcpTransport transport_;
  EndpointPair pair_;
  LocalRegionView a_;  // initiator's region
  LocalRegionView b_;  // target's region
};

// Many requests in flight at once on every stream, from two threads: the
// per-socket FIFOs must match every response to its request.
TEST_P(TcpOneSidedTest, ManyRequestsInFlightFromSeveralThreads) {
  constexpr size_t kPerThread = 64;
  constexpr size_t kSize = 32 << 10;
  FillPattern(Bytes(a_), kOneSidedRegion, 7);
  auto run = [&](size_t first) {
    std::vector<TransferRequest> requests(kPerThread);
    for (size_t i = 0; i < kPerThread; ++i) {
      size_t slot = first + i;
      TransferEntry entry{Bytes(a_) + slot * kSize, Addr(Bytes(b_) + slot * kSize), kSize};
      EXPECT_TRUE(
          pair_.initiator->PostWrite({&entry, 1}, requests[i], static_cast<uint32_t>(i)).ok());
    }
    for (auto& r : requests) EXPECT_TRUE(r.Wait(kWait).ok()) << r.Test().ToString();
  };
  std::thread other(run, kPerThread);
  run(0);
  other.join();
  EXPECT_EQ(FirstPatternMismatch(Bytes(b_), 2 * kPerThread * kSize, 7), 2 * kPerThread * kSize);
}

// Small WRITEs and READs interleaved on one stream, all in flight at once:
// coalesced WRITE_ACKs and READ_DATA must reach the initiator in order.
TEST_P(TcpOneSidedTest, InterleavedSmallWritesAndReads) {
  constexpr size_t kOps = 400;
  constexpr size_t kSize = 24;
  uint8_t* write_src = Bytes(a_);
  uint8_t* read_dst = Bytes(a_) + kOneSidedRegion / 2;
  uint8_t* write_dst = Bytes(b_);
  uint8_t* read_src = Bytes(b_) + kOneSidedRegion / 2;
  FillPattern(write_src, kOps * kSize, 21);
  FillPattern(read_src, kOps * kSize, 22);
  std::memset(read_dst, 0, kOps * kSize);
  std::vector<TransferRequest> requests(kOps);
  for (size_t i = 0; i < kOps; ++i) {
    TransferEntry entry{(i % 2 ? read_dst : write_src) + i * kSize,
                        Addr((i % 2 ? read_src : write_dst) + i * kSize), kSize};
    Status posted = i % 2 ? pair_.initiator->PostRead({&entry, 1}, requests[i], 0)
                          : pair_.initiator->PostWrite({&entry, 1}, requests[i], 0);
    ASSERT_TRUE(posted.ok());
  }
  for (auto& r : requests) ASSERT_TRUE(r.Wait(kWait).ok()) << r.Test().ToString();
  for (size_t i = 0; i < kOps; ++i) {
    const uint8_t* got = (i % 2 ? read_dst : write_dst) + i * kSize;
    const uint8_t* want = (i % 2 ? read_src : write_src) + i * kSize;
    ASSERT_EQ(std::memcmp(got, want, kSize), 0) << i;
  }
}

// The target initiates too, and both sides push large writes at each other
// at the same time: full socket buffers in both directions must not
// deadlock.
TEST_P(TcpOneSidedTest, BothDirectionsConcurrently) {
  constexpr size_t kCount = 8;
  constexpr size_t kSize = size_t{1} << 20;
  FillPattern(Bytes(a_), kCount * kSize, 11);
  FillPattern(Bytes(b_) + kCount * kSize, kCount * kSize, 12);
  auto blast = [&](Endpoint& from, uint8_t* src, uint8_t* dst) {
    std::vector<TransferRequest> requests(kCount);
    for (size_t i = 0; i < kCount; ++i) {
      TransferEntry entry{src + i * kSize, Addr(dst + i * kSize), kSize};
      EXPECT_TRUE(from.PostWrite({&entry, 1}, requests[i], static_cast<uint32_t>(i)).ok());
    }
    for (auto& r : requests) EXPECT_TRUE(r.Wait(kWait).ok()) << r.Test().ToString();
  };
  // Initiator writes a[0, 8 MiB) -> b[0, 8 MiB); target writes
  // b[8, 16 MiB) -> a[8, 16 MiB).
  std::thread target(blast, std::ref(*pair_.target), Bytes(b_) + kCount * kSize,
                     Bytes(a_) + kCount * kSize);
  blast(*pair_.initiator, Bytes(a_), Bytes(b_));
  target.join();
  EXPECT_EQ(FirstPatternMismatch(Bytes(b_), kCount * kSize, 11), kCount * kSize);
  EXPECT_EQ(FirstPatternMismatch(Bytes(a_) + kCount * kSize, kCount * kSize, 12), kCount * kSize);

  // And the target reads back what the initiator wrote.
  std::memset(Bytes(b_) + kCount * kSize, 0, kSize);
  TransferEntry entry{Bytes(b_) + kCount * kSize, Addr(Bytes(a_)), kSize};
  TransferRequest read;
  ASSERT_TRUE(pair_.target->PostRead({&entry, 1}, read, 0).ok());
  ASSERT_TRUE(read.Wait(kWait).ok()) << read.Test().ToString();
  EXPECT_EQ(FirstPatternMismatch(Bytes(b_) + kCount * kSize, kSize, 11), kSize);
}

std::string StreamsName(const ::testing::TestParamInfo<uint32_t>& param_info) {
  return std::to_string(param_info.param) + "streams";
}

INSTANTIATE_TEST_SUITE_P(Streams, TcpOneSidedTest, ::testing::Values(1u, 4u), StreamsName);

}  // namespace
}  // namespace xfer::transport::tcp::testing
