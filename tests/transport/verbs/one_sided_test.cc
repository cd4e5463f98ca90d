// One-sided READ/WRITE over real queue pairs, beyond the conformance suite
// (tests/conformance/): large entries striped over 1 and 4 streams, many
// small entries through a tiny send queue, back-pressure from a full queue,
// local memory registered on first use. Needs an RDMA device (skips
// otherwise).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "verbs_test_util.h"

namespace xfer::transport::verbs::testing {
namespace {

using xfer::testing::ConnectPair;
using xfer::testing::EndpointPair;

constexpr size_t kOneSidedRegion = 4 << 20;  // multi-MiB, modest for Soft-RoCE

class VerbsOneSidedTest : public VerbsDeviceTest,
                          public ::testing::WithParamInterface<uint32_t> {
 protected:
  void Connect(VerbsTransportOptions initiator_options = SideOptions(true),
               VerbsTransportOptions target_options = SideOptions(false)) {
    local_ = pair_.initiator_memory.Add(kOneSidedRegion, Access::kNone);
    remote_ = pair_.target_memory.Add(kOneSidedRegion, Access::kRemoteReadWrite);
    read_only_ = pair_.target_memory.Add(4096, Access::kRemoteRead);
    VerbsTransport initiator(initiator_options);
    VerbsTransport target(target_options);
    Status status = ConnectPair(initiator, target, pair_, GetParam());
    ASSERT_TRUE(status.ok()) << status.ToString();
  }

  Status Run(OpCode op, std::span<const TransferEntry> entries, uint32_t stream = 0) {
    TransferRequest request;
    Status posted = op == OpCode::kWrite ? pair_.initiator->PostWrite(entries, request, stream)
                                         : pair_.initiator->PostRead(entries, request, stream);
    if (!posted.ok()) return posted;
    Status done = request.Wait(kWait);
    if (done.ok()) {
      size_t total = 0;
      for (const auto& e : entries) total += e.length;
      EXPECT_EQ(request.bytes(), total);
    }
    return done;
  }

  EndpointPair pair_;
  LocalRegionView local_;
  LocalRegionView remote_;
  LocalRegionView read_only_;
};

TEST_P(VerbsOneSidedTest, MultiMiBWriteAndReadBackAreByteForByte) {
  Connect();
  FillPattern(Bytes(local_), kOneSidedRegion, 2);
  const TransferEntry entry{Bytes(local_), Addr(Bytes(remote_)), kOneSidedRegion};
  ASSERT_TRUE(Run(OpCode::kWrite, {&entry, 1}, GetParam() - 1).ok());
  EXPECT_EQ(FirstPatternMismatch(Bytes(remote_), kOneSidedRegion, 2), kOneSidedRegion);

  FillPattern(Bytes(remote_), kOneSidedRegion, 3);
  std::memset(Bytes(local_), 0, kOneSidedRegion);
  Status read = Run(OpCode::kRead, {&entry, 1});
  ASSERT_TRUE(read.ok()) << read.ToString();
  EXPECT_EQ(FirstPatternMismatch(Bytes(local_), kOneSidedRegion, 3), kOneSidedRegion);
}

TEST_P(VerbsOneSidedTest, ManySmallEntriesPassATinySendQueueInOrder) {
  VerbsTransportOptions small = SideOptions(true);
  small.send_depth = 4;  // forces the backlog
  Connect(small);
  constexpr size_t kEntries = 500;
  constexpr size_t kSize = 1000;
  FillPattern(Bytes(local_), kEntries * kSize, 5);
  std::vector<TransferEntry> batch;
  for (size_t i = 0; i < kEntries; ++i) {
    // Scattered: entry i goes to slot (i * 7) % kEntries.
    batch.push_back({Bytes(local_) + i * kSize,
                     Addr(Bytes(remote_)) + ((i * 7) % kEntries) * kSize, kSize});
  }
  ASSERT_TRUE(Run(OpCode::kWrite, batch).ok());
  for (size_t i = 0; i < kEntries; ++i) {
    ASSERT_EQ(std::memcmp(Bytes(remote_) + ((i * 7) % kEntries) * kSize, Bytes(local_) + i * kSize,
                          kSize),
              0)
        << "entry " << i;
  }
  std::vector<uint8_t> expected(Bytes(local_), Bytes(local_) + kEntries * kSize);
  std::memset(Bytes(local_), 0, kEntries * kSize);
  ASSERT_TRUE(Run(OpCode::kRead, batch).ok());
  EXPECT_EQ(std::memcmp(Bytes(local_), expected.data(), expected.size()), 0);
}

TEST_P(VerbsOneSidedTest, AFullQueueRefusesWholeRequestsUntouchedAndRetriesSucceed) {
  VerbsTransportOptions small = SideOptions(true);
  small.send_depth = 4;
  small.send_backlog = 8;  // 12 WRs per QP in all
  Connect(small);
  constexpr size_t kSize = 512;
  FillPattern(Bytes(local_), 64 * kSize, 9);
  auto batch_of = [&](size_t count, size_t first) {
    std::vector<TransferEntry> batch;
    for (size_t i = first; i < first + count; ++i) {
      batch.push_back({Bytes(local_) + i * kSize, Addr(Bytes(remote_)) + i * kSize, kSize});
    }
    return batch;
  };
  // Never fits: refused as a batch to split, the request untouched.
  TransferRequest never;
  const Status too_long = pair_.initiator->PostWrite(batch_of(13, 0), never, 0);
  EXPECT_EQ(too_long.code(), StatusCode::kInvalidArgument) << too_long.ToString();
  EXPECT_TRUE(never.Test().ok());  // not in flight
  // Posting without waiting fills the queue: a request is then refused
  // whole with "retry", untouched, and succeeds once the queue drains.
  constexpr size_t kMaxRequests = 10;  // 60 entries of the 64 filled
  TransferRequest requests[kMaxRequests];
  size_t posted = 0;
  Status refusal;
  for (; posted < kMaxRequests; ++posted) {
    refusal = pair_.initiator->PostWrite(batch_of(6, posted * 6), requests[posted], 0);
    if (!refusal.ok()) break;
  }
  ASSERT_LT(posted, kMaxRequests) << "60 WRs on a 12-WR queue were never refused";
  EXPECT_EQ(refusal.code(), StatusCode::kResourceExhausted) << refusal.ToString();
  EXPECT_TRUE(requests[posted].Test().ok());  // not in flight
  for (size_t r = 0; r < posted; ++r) ASSERT_TRUE(requests[r].Wait(kWait).ok());
  const Status retried = pair_.initiator->PostWrite(batch_of(6, posted * 6), requests[posted], 0);
  ASSERT_TRUE(retried.ok()) << retried.ToString();
  ASSERT_TRUE(requests[posted].Wait(kWait).ok());
  EXPECT_EQ(std::memcmp(Bytes(remote_), Bytes(local_), (posted + 1) * 6 * kSize), 0);
}

TEST_P(VerbsOneSidedTest, LocalRegionRegisteredAfterConnectIsRegisteredOnFirstUse) {
  Connect();
  const LocalRegionView later = pair_.initiator_memory.Add(1 << 20, Access::kNone);
  FillPattern(Bytes(later), 1 << 20, 7);
  const TransferEntry entry{Bytes(later), Addr(Bytes(remote_)) + 8192, 1 << 20};
  ASSERT_TRUE(Run(OpCode::kWrite, {&entry, 1}).ok());
  EXPECT_EQ(FirstPatternMismatch(Bytes(remote_) + 8192, 1 << 20, 7), size_t{1} << 20);
  std::memset(Bytes(later), 0, 1 << 20);
  ASSERT_TRUE(Run(OpCode::kRead, {&entry, 1}).ok());
  EXPECT_EQ(FirstPatternMismatch(Bytes(later), 1 << 20, 7), size_t{1} << 20);
}

// Both sides register their regions in pieces of 1 MiB: a batch of entries
// starting at odd offsets runs across pieces cut at different places of
// each entry locally and remotely; every byte lands, both ways, and a
// range past the remote region's end is still refused whole.
TEST_P(VerbsOneSidedTest, EntriesAcrossRegistrationPiecesAreByteForByte) {
  auto options = [](bool initiator) {
    VerbsTransportOptions o = SideOptions(initiator);
    o.registration_piece_bytes = 1 << 20;
    return o;
  };
  Connect(options(true), options(false));
  FillPattern(Bytes(local_), kOneSidedRegion, 9);
  const TransferEntry entries[] = {
      {Bytes(local_) + 100, Addr(Bytes(remote_)) + 3000, (1 << 20) + 5000},
      {Bytes(local_) + (2 << 20) - 7, Addr(Bytes(remote_)) + (2 << 20) + 11, (1 << 20) + 64},
  };
  ASSERT_TRUE(Run(OpCode::kWrite, entries).ok());
  for (const TransferEntry& e : entries) {
    const uint8_t* landed = Bytes(remote_) + (e.remote - Addr(Bytes(remote_)));
    EXPECT_EQ(std::memcmp(landed, e.local, e.length), 0);
  }
  std::memset(Bytes(local_), 0, kOneSidedRegion);
  ASSERT_TRUE(Run(OpCode::kRead, entries).ok());
  for (const TransferEntry& e : entries) {
    const uint8_t* source = Bytes(remote_) + (e.remote - Addr(Bytes(remote_)));
    EXPECT_EQ(std::memcmp(e.local, source, e.length), 0);
  }
  const TransferEntry past_end{Bytes(local_), Addr(Bytes(remote_)) + kOneSidedRegion - 4096,
                               8192};
  TransferRequest refused;
  EXPECT_EQ(pair_.initiator->PostWrite({&past_end, 1}, refused, 0).code(),
            StatusCode::kOutOfRange);
}

INSTANTIATE_TEST_SUITE_P(Streams, VerbsOneSidedTest, ::testing::Values(1u, 4u),
                         [](const auto& param_info) { return std::to_string(param_info.param) + "_streams"; });

}  // namespace
}  // namespace xfer::transport::verbs::testing
