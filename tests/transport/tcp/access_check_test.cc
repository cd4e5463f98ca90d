// The target checks every remote range itself: requests posted straight to
// the endpoint (bypassing the engine's checks) for memory the target did
// not register, or registered without the needed access, fail with the
// right code, leave every byte untouched, and leave the connection usable.
#include <gtest/gtest.h>

#include <vector>

#include "support/endpoint_pair.h"
#include "tcp_test_util.h"

namespace xfer::transport::tcp::testing {
namespace {

using xfer::testing::ConnectPair;
using xfer::testing::EndpointPair;

constexpr size_t kCheckedRegion = 64 << 10;
constexpr uint32_t kCanary = 0xC0FFEE;
constexpr uint32_t kData = 42;

class TcpAccessCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    local_ = pair_.initiator_memory.Add(kCheckedRegion, Access::kRemoteReadWrite);
    rw_ = pair_.target_memory.Add(kCheckedRegion, Access::kRemoteReadWrite);
    read_only_ = pair_.target_memory.Add(kCheckedRegion, Access::kRemoteRead);
    write_only_ = pair_.target_memory.Add(kCheckedRegion, Access::kRemoteWrite);
    unregistered_.resize(kCheckedRegion);
    for (auto* p : {Bytes(rw_), Bytes(read_only_), Bytes(write_only_), unregistered_.data()}) {
      FillPattern(p, kCheckedRegion, kCanary);
    }
    ASSERT_TRUE(ConnectPair(transport_, transport_, pair_, 2).ok());
  }

  void ExpectTargetUntouched() {
    for (auto* p : {Bytes(rw_), Bytes(read_only_), Bytes(write_only_), unregistered_.data()}) {
      EXPECT_EQ(FirstPatternMismatch(p, kCheckedRegion, kCanary), kCheckedRegion);
    }
  }

  Status Write(uint64_t remote, size_t length) {
    FillPattern(Bytes(local_), length, kData);
    TransferEntry entry{Bytes(local_), remote, length};
    TransferRequest request;
    EXPECT_TRUE(pair_.initiator->PostWrite({&entry, 1}, request, 0).ok());
    (void)request.Wait(kWait);
    EXPECT_TRUE(request.done());
    return request.Test();
  }

  Status Read(uint64_t remote, size_t length) {
    FillPattern(Bytes(local_), kCheckedRegion, kCanary);
    TransferEntry entry{Bytes(local_), remote, length};
    TransferRequest request;
    EXPECT_TRUE(pair_.initiator->PostRead({&entry, 1}, request, 1).ok());
    (void)request.Wait(kWait);
    EXPECT_TRUE(request.done());
    return request.Test();
  }

  // A valid WRITE and READ still work: the refusal did not break the stream.
  void ExpectConnectionStillWorks() {
    ASSERT_TRUE(Write(Addr(Bytes(rw_)), 1000).ok());
    EXPECT_EQ(FirstPatternMismatch(Bytes(rw_), 1000, kData), 1000u);
    ASSERT_TRUE(Read(Addr(Bytes(read_only_)), 1000).ok());
    EXPECT_EQ(FirstPatternMismatch(Bytes(local_), 1000, kCanary), 1000u);
  }

  TcpTransport transport_;
  EndpointPair pair_;
  LocalRegionView local_;
  LocalRegionView rw_;
  LocalRegionView read_only_;
  LocalRegionView write_only_;
  std::vector<uint8_t> unregistered_;  // target-side memory nobody registered
};

TEST_F(TcpAccessCheckTest, WriteToReadOnlyRegionIsDenied) {
  Status status = Write(Addr(Bytes(read_only_)), 4096);
  EXPECT_EQ(status.code(), StatusCode::kPermissionDenied) << status.ToString();
  EXPECT_NE(status.message().find("WRITE"), std::string::npos) << status.message();
  ExpectTargetUntouched();
  ExpectConnectionStillWorks();
}

TEST_F(TcpAccessCheckTest, WriteOutsideRegisteredMemoryIsOutOfRange) {
  Status status = Write(Addr(unregistered_.data()), 4096);
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange) << status.ToString();
  // Straddling the end of a registered region is out of range too.
  status = Write(Addr(Bytes(rw_)) + kCheckedRegion - 10, 100);
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange) << status.ToString();
  // An address range that wraps around the address space.
  status = Write(~uint64_t{0} - 10, 100);
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange) << status.ToString();
  ExpectTargetUntouched();
  ExpectConnectionStillWorks();
}

TEST_F(TcpAccessCheckTest, ReadFromWriteOnlyRegionIsDeniedAndLeavesLocalUntouched) {
  Status status = Read(Addr(Bytes(write_only_)), 4096);
  EXPECT_EQ(status.code(), StatusCode::kPermissionDenied) << status.ToString();
  EXPECT_EQ(FirstPatternMismatch(Bytes(local_), kCheckedRegion, kCanary), kCheckedRegion);
  status = Read(Addr(unregistered_.data()), 4096);
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange) << status.ToString();
  EXPECT_EQ(FirstPatternMismatch(Bytes(local_), kCheckedRegion, kCanary), kCheckedRegion);
  ExpectTargetUntouched();
  ExpectConnectionStillWorks();
}

// One bad entry fails the batch; the good entries around it still land and
// the stream stays in step (the refused payload was drained, not parsed).
TEST_F(TcpAccessCheckTest, BadEntryFailsTheBatchOnly) {
  FillPattern(Bytes(local_), kCheckedRegion, kData);
  std::vector<TransferEntry> entries = {
      {Bytes(local_), Addr(Bytes(rw_)), 5000},
      {Bytes(local_), Addr(Bytes(read_only_)), 5000},
      {Bytes(local_), Addr(Bytes(rw_)) + 8192, 5000},
  };
  TransferRequest request;
  ASSERT_TRUE(pair_.initiator->PostWrite(entries, request, 0).ok());
  (void)request.Wait(kWait);
  ASSERT_TRUE(request.done());
  EXPECT_EQ(request.Test().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(FirstPatternMismatch(Bytes(read_only_), kCheckedRegion, kCanary), kCheckedRegion);
  EXPECT_EQ(FirstPatternMismatch(Bytes(rw_), 5000, kData), 5000u);
  EXPECT_EQ(FirstPatternMismatch(Bytes(rw_) + 8192, 5000, kData), 5000u);
  ExpectConnectionStillWorks();
}

}  // namespace
}  // namespace xfer::transport::tcp::testing
