// One suite, every transport: what transport.h's Endpoint contract promises,
// checked the same way on shm, tcp and (where an RDMA device exists: the
// Soft-RoCE VM) verbs. Transports are built through the registry, by name,
// so a new transport joins by being built in. Cases that only one transport
// has (shm's process_vm path, verbs' striping, tcp's framing faults) stay
// in tests/transport/<name>/.
#include <gtest/gtest.h>

#include <algorithm>
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
#include "support/verbs_test_env.h"
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

constexpr auto kWait = 10s;
constexpr auto kIoTimeout = 1000ms;
constexpr size_t kRegion = size_t{4} << 20;
constexpr uint32_t kStreams = 4;

// The outcome of a request: the post's error, or the completion's status.
Status Outcome(Status posted, TransferRequest& request) {
  if (!posted.ok()) return posted;
  return request.Wait(kWait);
}

bool AllBytesAre(const uint8_t* p, size_t n, uint8_t value) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != value) return false;
  }
  return true;
}

class EndpointConformanceTest : public ::testing::TestWithParam<std::string> {
 protected:
  // The transport under test, and over how many rails (support/rail_pair.h).
  std::string transport() const { return xfer::testing::RailCase::Parse(GetParam()).transport; }
  uint32_t rails() const { return xfer::testing::RailCase::Parse(GetParam()).rails; }

  void SetUp() override {
    local_ = pair_.initiator_memory.Add(kRegion, Access::kRemoteReadWrite);
    remote_ = pair_.target_memory.Add(kRegion, Access::kRemoteReadWrite);
    read_only_ = pair_.target_memory.Add(4096, Access::kRemoteRead);
    auto transports = xfer::testing::CreateTransportPair(transport());
    ASSERT_TRUE(transports.ok()) << transports.status().ToString();
    initiator_transport_ = std::move(transports->initiator);
    target_transport_ = std::move(transports->target);
    // A transport this host cannot run (verbs without an RDMA device) is
    // skipped with its own reason.
    if (Status usable = initiator_transport_->Usable(); !usable.ok()) {
      GTEST_SKIP() << transport() << " is not usable here: " << usable.ToString();
    }
    const Status connected =
        ConnectRailPair(*initiator_transport_, *target_transport_, pair_, rails(), kStreams, kIoTimeout);
    ASSERT_TRUE(connected.ok()) << connected.ToString();
  }

  Status Write(const TransferEntry& entry, uint32_t stream = 0) {
    TransferRequest request;
    return Outcome(pair_.initiator->PostWrite({&entry, 1}, request, stream), request);
  }
  Status Read(const TransferEntry& entry, uint32_t stream = 0) {
    TransferRequest request;
    return Outcome(pair_.initiator->PostRead({&entry, 1}, request, stream), request);
  }

  std::unique_ptr<Transport> initiator_transport_;
  std::unique_ptr<Transport> target_transport_;
  EndpointPair pair_;  // after the transports: its endpoints go first
  LocalRegionView local_;
  LocalRegionView remote_;
  LocalRegionView read_only_;
};

TEST_P(EndpointConformanceTest, WritesAndReadsLandByteForByteAndTouchNothingElse) {
  uint32_t seed = 1;
  for (size_t size : {size_t{1}, size_t{7}, size_t{4096}, size_t{65537}, size_t{1} << 20}) {
    const size_t offset = 3;
    FillPattern(Bytes(local_), size, seed);
    std::memset(Bytes(remote_), 0xee, size + 2 * offset);
    const TransferEntry entry{Bytes(local_), Addr(Bytes(remote_)) + offset, size};
    const Status wrote = Write(entry, seed % kStreams);
    ASSERT_TRUE(wrote.ok()) << size << ": " << wrote.ToString();
    EXPECT_EQ(FirstPatternMismatch(Bytes(remote_) + offset, size, seed), size) << size;
    EXPECT_TRUE(AllBytesAre(Bytes(remote_), offset, 0xee)) << "wrote before the range";
    EXPECT_TRUE(AllBytesAre(Bytes(remote_) + offset + size, offset, 0xee)) << "wrote past it";

    FillPattern(Bytes(remote_) + offset, size, seed + 100);
    std::memset(Bytes(local_), 0, size + 1);
    const Status read = Read(entry, seed % kStreams);
    ASSERT_TRUE(read.ok()) << size << ": " << read.ToString();
    EXPECT_EQ(FirstPatternMismatch(Bytes(local_), size, seed + 100), size) << size;
    EXPECT_EQ(Bytes(local_)[size], 0) << "read past the end for size " << size;
    ++seed;
  }
}

TEST_P(EndpointConformanceTest, ABatchCompletesOnceWithTheBytesOfEveryEntry) {
  FillPattern(Bytes(local_), kRegion, 7);
  std::memset(Bytes(remote_), 0, kRegion);
  const uint64_t remote = Addr(Bytes(remote_));
  // Unaligned, out of order, covering the region exactly.
  const TransferEntry batch[] = {{Bytes(local_) + 4097, remote + 4097, kRegion - 4097 - 333},
                                 {Bytes(local_), remote, 4097},
                                 {Bytes(local_) + kRegion - 333, remote + kRegion - 333, 333}};
  TransferRequest request;
  ASSERT_TRUE(pair_.initiator->PostWrite(batch, request, 1).ok());
  ASSERT_TRUE(request.Wait(kWait).ok()) << request.Test().ToString();
  EXPECT_EQ(request.bytes(), kRegion);
  EXPECT_EQ(FirstPatternMismatch(Bytes(remote_), kRegion, 7), kRegion);
}

TEST_P(EndpointConformanceTest, RequestsInFlightOnEveryStreamAllComplete) {
  FillPattern(Bytes(local_), kRegion, 8);
  constexpr uint32_t kRequests = 16;
  const size_t piece = kRegion / kRequests;
  TransferRequest requests[kRequests];
  for (uint32_t i = 0; i < kRequests; ++i) {
    const TransferEntry entry{Bytes(local_) + i * piece, Addr(Bytes(remote_)) + i * piece, piece};
    ASSERT_TRUE(pair_.initiator->PostWrite({&entry, 1}, requests[i], i % kStreams).ok());
  }
  for (auto& request : requests) ASSERT_TRUE(request.Wait(kWait).ok()) << request.Test().ToString();
  EXPECT_EQ(FirstPatternMismatch(Bytes(remote_), kRegion, 8), kRegion);
}

TEST_P(EndpointConformanceTest, MessagesFillReceivesInPostingOrderWithTheirLengths) {
  constexpr size_t kMessages = 4;
  const size_t lengths[kMessages] = {1, 100, 4096, 70000};
  TransferRequest receives[kMessages];
  for (size_t i = 0; i < kMessages; ++i) {
    ASSERT_TRUE(pair_.target->PostRecv(Bytes(remote_) + i * 100000, 100000, receives[i]).ok());
  }
  for (size_t i = 0; i < kMessages; ++i) {
    FillPattern(Bytes(local_) + i * 100000, lengths[i], static_cast<uint32_t>(20 + i));
    TransferRequest send;
    ASSERT_TRUE(Outcome(pair_.initiator->PostSend(Bytes(local_) + i * 100000, lengths[i], send, 0),
                        send)
                    .ok());
  }
  for (size_t i = 0; i < kMessages; ++i) {
    ASSERT_TRUE(receives[i].Wait(kWait).ok()) << i << ": " << receives[i].Test().ToString();
    EXPECT_EQ(receives[i].bytes(), lengths[i]);
    EXPECT_EQ(FirstPatternMismatch(Bytes(remote_) + i * 100000, lengths[i],
                                   static_cast<uint32_t>(20 + i)),
              lengths[i]);
  }
}

TEST_P(EndpointConformanceTest, AReceivePostedAfterTheMessageArrivesStillGetsIt) {
  FillPattern(Bytes(local_), 512, 30);
  TransferRequest send;
  ASSERT_TRUE(Outcome(pair_.initiator->PostSend(Bytes(local_), 512, send, 0), send).ok());
  std::this_thread::sleep_for(50ms);
  TransferRequest receive;
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(remote_), 4096, receive).ok());
  ASSERT_TRUE(receive.Wait(kWait).ok()) << receive.Test().ToString();
  EXPECT_EQ(receive.bytes(), 512u);
  EXPECT_EQ(FirstPatternMismatch(Bytes(remote_), 512, 30), 512u);
}

// Issue 27, defect 16: a dropped message is reported to the receiver, with
// both lengths, the same way on every transport (include/xfer/engine.h,
// PostRecv); its buffer is untouched and the connection carries on.
TEST_P(EndpointConformanceTest, ATooLongMessageFailsOnlyItsReceive) {
  std::memset(Bytes(remote_), 0x5a, 4096 + 4096);
  TransferRequest small;
  TransferRequest next;
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(remote_), 100, small).ok());
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(remote_) + 4096, 4096, next).ok());
  FillPattern(Bytes(local_), 4096, 31);
  TransferRequest long_send;
  TransferRequest good_send;
  ASSERT_TRUE(Outcome(pair_.initiator->PostSend(Bytes(local_), 1000, long_send, 0), long_send).ok());
  ASSERT_TRUE(Outcome(pair_.initiator->PostSend(Bytes(local_), 200, good_send, 0), good_send).ok());
  const Status dropped = small.Wait(kWait);
  EXPECT_EQ(dropped.code(), StatusCode::kInvalidArgument) << dropped.ToString();
  EXPECT_EQ(dropped.message(),
            transport() + ": a 1000-byte message does not fit the posted 100-byte receive; dropped");
  EXPECT_EQ(small.bytes(), 0u);
  EXPECT_EQ(std::count(Bytes(remote_), Bytes(remote_) + 4096, 0x5a), 4096);
  ASSERT_TRUE(next.Wait(kWait).ok()) << next.Test().ToString();
  EXPECT_EQ(next.bytes(), 200u);
  EXPECT_EQ(FirstPatternMismatch(Bytes(remote_) + 4096, 200, 31), 200u);
}

TEST_P(EndpointConformanceTest, RangesOutsideThePeersMemoryAreRefusedUntouched) {
  std::memset(Bytes(remote_), 0x5a, kRegion);
  FillPattern(Bytes(local_), 8192, 40);
  const uint64_t base = Addr(Bytes(remote_));
  struct Case {
    const char* what;
    uint64_t remote;
    uint64_t length;
  } cases[] = {
      {"runs past the end", base + kRegion - 10, 20},
      {"starts before the region", base - 4096, 8},
      {"unregistered address", base + kRegion + (1 << 20), 64},
      {"wraps the address space", UINT64_MAX - 4, 16},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const TransferEntry bad{Bytes(local_) + 4096, c.remote, c.length};
    EXPECT_EQ(Write(bad).code(), StatusCode::kOutOfRange);
    EXPECT_EQ(Read(bad).code(), StatusCode::kOutOfRange);
    EXPECT_TRUE(AllBytesAre(Bytes(remote_), kRegion, 0x5a));
    // A good entry first, then the bad one: the request fails. Refused at
    // posting, nothing moved (transport.h); found by the target (tcp
    // checks each frame there), the entries before it may have landed.
    const TransferEntry batch[] = {{Bytes(local_), base, 4096}, bad};
    TransferRequest request;
    const Status posted = pair_.initiator->PostWrite(batch, request, 0);
    if (!posted.ok()) {
      EXPECT_EQ(posted.code(), StatusCode::kOutOfRange) << posted.ToString();
      EXPECT_TRUE(request.Test().ok());  // never started
      EXPECT_TRUE(AllBytesAre(Bytes(remote_), kRegion, 0x5a));
    } else {
      EXPECT_EQ(request.Wait(kWait).code(), StatusCode::kOutOfRange) << request.Test().ToString();
      EXPECT_TRUE(AllBytesAre(Bytes(remote_) + 4096, kRegion - 4096, 0x5a));
      std::memset(Bytes(remote_), 0x5a, 4096);
    }
  }
  // Refusals do not end the connection.
  const Status good = Write({Bytes(local_), base, 64});
  EXPECT_TRUE(good.ok()) << good.ToString();
  EXPECT_EQ(FirstPatternMismatch(Bytes(remote_), 64, 40), 64u);
}

TEST_P(EndpointConformanceTest, AReadOnlyRegionRefusesWritesUntouched) {
  std::memset(Bytes(read_only_), 0x33, 4096);
  FillPattern(Bytes(local_), 4096, 41);
  const Status wrote = Write({Bytes(local_), Addr(Bytes(read_only_)), 4096});
  EXPECT_EQ(wrote.code(), StatusCode::kPermissionDenied) << wrote.ToString();
  EXPECT_TRUE(AllBytesAre(Bytes(read_only_), 4096, 0x33));
}

// Engine::DeregisterMemory's order: out of the table, then Revoke; from
// then on the peer neither writes nor reads the region.
// The code is the transport's promise (Capabilities::revoked_region_code),
// and so is what the refusal does to the connection
// (refusal_fails_connection): the next request either meets the same
// refusal or the failed connection.
TEST_P(EndpointConformanceTest, ARevokedRegionIsNeitherWrittenNorRead) {
  const Capabilities caps = initiator_transport_->capabilities();
  std::memset(Bytes(remote_), 0x77, kRegion);
  pair_.target_memory.Withdraw(remote_.id);
  ASSERT_TRUE(pair_.target->Revoke(remote_, Deadline::After(kWait)).ok());
  FillPattern(Bytes(local_), 4096, 42);
  const TransferEntry entry{Bytes(local_), Addr(Bytes(remote_)), 4096};
  const Status wrote = Write(entry);
  EXPECT_EQ(wrote.code(), caps.revoked_region_code) << wrote.ToString();
  const Status read = Read(entry);
  if (caps.refusal_fails_connection && rails() > 1) {
    // The refusal failed the rail the WRITE took; the READ, dealt to
    // another rail when it finds that one dead (failover), meets the same
    // refusal there.
    EXPECT_TRUE(read.code() == StatusCode::kConnectionLost ||
                read.code() == caps.revoked_region_code)
        << read.ToString();
  } else {
    EXPECT_EQ(read.code(), caps.refusal_fails_connection ? StatusCode::kConnectionLost
                                                         : caps.revoked_region_code)
        << read.ToString();
  }
  EXPECT_TRUE(AllBytesAre(Bytes(remote_), kRegion, 0x77));
}

// Capabilities::max_inline_bytes: a post of at most that many bytes has
// read its source when Post returns, so overwriting the source at once
// changes nothing that lands.
TEST_P(EndpointConformanceTest, AnInlinePostHasReadItsSourceWhenItReturns) {
  const Capabilities caps = initiator_transport_->capabilities();
  if (caps.max_inline_bytes == 0) GTEST_SKIP() << transport() << " reads sources until completion";
  const size_t size = static_cast<size_t>(std::min<uint64_t>(caps.max_inline_bytes, 256 * 1024));
  FillPattern(Bytes(local_), size, 44);
  std::memset(Bytes(remote_), 0, size);
  const TransferEntry entry{Bytes(local_), Addr(Bytes(remote_)), size};
  TransferRequest request;
  ASSERT_TRUE(pair_.initiator->PostWrite({&entry, 1}, request, 0).ok());
  std::memset(Bytes(local_), 0xbd, size);  // the caller reuses its buffer at once
  ASSERT_TRUE(request.Wait(kWait).ok()) << request.Test().ToString();
  EXPECT_EQ(FirstPatternMismatch(Bytes(remote_), size, 44), size);
}

TEST_P(EndpointConformanceTest, APeerThatClosesFailsPostsWithConnectionLostInTime) {
  pair_.target->Close();
  FillPattern(Bytes(local_), 4096, 43);
  const TransferEntry entry{Bytes(local_), Addr(Bytes(remote_)), 4096};
  const auto start = std::chrono::steady_clock::now();
  Status status;
  // The first posts may still be accepted while the close travels; within
  // twice the io_timeout every post fails.
  while (std::chrono::steady_clock::now() - start < 2 * kIoTimeout + 1s) {
    status = Write(entry);
    if (!status.ok()) break;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2 * kIoTimeout + 1s);
  EXPECT_EQ(status.code(), StatusCode::kConnectionLost) << status.ToString();
}

TEST_P(EndpointConformanceTest, PostsAfterALocalCloseFailWithConnectionLost) {
  TransferRequest receive;
  ASSERT_TRUE(pair_.initiator->PostRecv(Bytes(local_), 4096, receive).ok());
  pair_.initiator->Close();
  EXPECT_EQ(receive.Wait(kWait).code(), StatusCode::kConnectionLost) << receive.Test().ToString();
  const TransferEntry entry{Bytes(local_), Addr(Bytes(remote_)), 64};
  EXPECT_EQ(Write(entry).code(), StatusCode::kConnectionLost);
  EXPECT_EQ(Read(entry).code(), StatusCode::kConnectionLost);
  TransferRequest send;
  EXPECT_EQ(Outcome(pair_.initiator->PostSend(Bytes(local_), 64, send, 0), send).code(),
            StatusCode::kConnectionLost);
}

INSTANTIATE_TEST_SUITE_P(Transports, EndpointConformanceTest,
                         ::testing::ValuesIn(xfer::testing::ConformanceCases()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace xfer::transport
