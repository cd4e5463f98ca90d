// How the verbs transport cuts work into WRs, what a failed completion
// becomes, and which access a region's MR gets. Pure: no device needed.
#include <gtest/gtest.h>

#include <optional>

#include <map>
#include <random>
#include <set>

#include "transport/verbs/completion_status.h"
#include "transport/verbs/local_registrations.h"
#include "transport/verbs/striping.h"

namespace xfer::transport::verbs {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * 1024;

std::pmr::vector<Piece> Stripe(std::vector<uint64_t> lengths, uint32_t first, const StripeRule& rule) {
  std::pmr::vector<Piece> pieces;
  EXPECT_TRUE(StripeEntries(lengths, first, rule, pieces).ok());
  return pieces;
}

TEST(VerbsStripingTest, SmallEntriesStayWholeOnTheCallersStream) {
  const StripeRule rule{4, 64 * kKiB, 1 * kMiB};
  auto pieces = Stripe({64, 4096, 127 * kKiB}, 2, rule);
  ASSERT_EQ(pieces.size(), 3u);
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(pieces[i].entry, i);
    EXPECT_EQ(pieces[i].stream, 2u);
    EXPECT_EQ(pieces[i].offset, 0u);
  }
  EXPECT_EQ(pieces[2].length, 127 * kKiB);
}

TEST(VerbsStripingTest, LargeEntriesSpreadRoundRobinFromTheCallersStream) {
  const StripeRule rule{4, 64 * kKiB, 1 * kMiB};
  auto two = Stripe({128 * kKiB}, 3, rule);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].stream, 3u);
  EXPECT_EQ(two[1].stream, 0u);
  EXPECT_EQ(two[0].length, 64 * kKiB);
  EXPECT_EQ(two[1].offset, 64 * kKiB);

  auto four = Stripe({1 * kMiB}, 0, rule);
  ASSERT_EQ(four.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(four[i].stream, i);
    EXPECT_EQ(four[i].length, 256 * kKiB);
    EXPECT_EQ(four[i].offset, i * 256 * kKiB);
  }
}

TEST(VerbsStripingTest, PiecesNeverExceedTheMaximumAndWrapAround) {
  const StripeRule one{1, 64 * kKiB, 1 * kMiB};
  auto serial = Stripe({8 * kMiB}, 0, one);
  ASSERT_EQ(serial.size(), 8u);
  for (const auto& p : serial) {
    EXPECT_EQ(p.stream, 0u);
    EXPECT_EQ(p.length, 1 * kMiB);
  }
  const StripeRule four{4, 64 * kKiB, 1 * kMiB};
  auto wrapped = Stripe({8 * kMiB}, 1, four);
  ASSERT_EQ(wrapped.size(), 8u);
  std::map<uint32_t, int> per_stream;
  for (const auto& p : wrapped) ++per_stream[p.stream];
  EXPECT_EQ(per_stream, (std::map<uint32_t, int>{{0, 2}, {1, 2}, {2, 2}, {3, 2}}));
}

TEST(VerbsStripingTest, RandomBatchesAreCoveredExactlyWithinTheRule) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 2000; ++round) {
    StripeRule rule;
    rule.streams = 1 + static_cast<uint32_t>(rng() % 64);
    rule.min_piece = kPieceAlignment * (1 + rng() % 32);
    rule.max_piece = rule.min_piece * (1 + rng() % 64);
    const uint32_t first = static_cast<uint32_t>(rng() % rule.streams);
    std::vector<uint64_t> lengths(1 + rng() % 8);
    for (auto& length : lengths) length = 1 + rng() % (rule.max_piece * 3 * rule.streams);
    auto pieces = Stripe(lengths, first, rule);
    std::vector<uint64_t> covered(lengths.size(), 0);
    for (size_t i = 0; i < pieces.size(); ++i) {
      const Piece& p = pieces[i];
      ASSERT_LT(p.entry, lengths.size());
      ASSERT_LT(p.stream, rule.streams);
      ASSERT_GT(p.length, 0u);
      ASSERT_LE(p.length, rule.max_piece);
      ASSERT_EQ(p.offset, covered[p.entry]) << "pieces of an entry are in order and contiguous";
      ASSERT_EQ(p.offset % kPieceAlignment, 0u);
      covered[p.entry] += p.length;
      const uint64_t k = p.offset == 0 ? 0 : 1;  // a first piece is on `first`
      if (k == 0) {
        ASSERT_EQ(p.stream, first);
      }
      if (lengths[p.entry] < 2 * rule.min_piece && lengths[p.entry] <= rule.max_piece) {
        ASSERT_EQ(p.length, lengths[p.entry]) << "a short entry stays whole";
      }
    }
    for (size_t e = 0; e < lengths.size(); ++e) ASSERT_EQ(covered[e], lengths[e]);
  }
}

TEST(VerbsStripingTest, StripedPiecesAreNoSmallerThanTheMinimum) {
  const StripeRule rule{8, 64 * kKiB, 1 * kMiB};
  for (uint64_t length = 2 * rule.min_piece; length < 4 * kMiB; length += 12345) {
    auto pieces = Stripe({length}, 0, rule);
    if (pieces.size() < 2) continue;
    for (size_t i = 0; i + 1 < pieces.size(); ++i) EXPECT_GE(pieces[i].length, rule.min_piece);
    std::set<uint32_t> streams;
    for (const auto& p : pieces) streams.insert(p.stream);
    EXPECT_EQ(streams.size(), std::min<size_t>(pieces.size(), rule.streams));
  }
}

TEST(VerbsStripingTest, MessagesAreCutIntoReceiveSlotPieces) {
  EXPECT_EQ(CountMessagePieces(1, 16384), 1u);
  EXPECT_EQ(CountMessagePieces(16384, 16384), 1u);
  EXPECT_EQ(CountMessagePieces(16385, 16384), 2u);
  EXPECT_EQ(CountMessagePieces(uint64_t{1} << 30, 16384), 65536u);
}

TEST(VerbsCompletionStatusTest, FailedCompletionsMapToActionableCodes) {
  EXPECT_EQ(CompletionCode(IBV_WC_SUCCESS), StatusCode::kOk);
  EXPECT_EQ(CompletionCode(IBV_WC_REM_ACCESS_ERR), StatusCode::kPermissionDenied);
  EXPECT_EQ(CompletionCode(IBV_WC_RETRY_EXC_ERR), StatusCode::kConnectionLost);
  EXPECT_EQ(CompletionCode(IBV_WC_WR_FLUSH_ERR), StatusCode::kConnectionLost);
  EXPECT_EQ(CompletionCode(IBV_WC_RNR_RETRY_EXC_ERR), StatusCode::kTimeout);
  EXPECT_EQ(CompletionCode(IBV_WC_LOC_PROT_ERR), StatusCode::kInternal);
  // Soft-RoCE's word for a send its dead link could not make: the path's
  // failure (kIoError, which failover deals elsewhere), not the request's.
  EXPECT_EQ(CompletionCode(IBV_WC_LOC_QP_OP_ERR), StatusCode::kIoError);
  EXPECT_EQ(CompletionCode(IBV_WC_GENERAL_ERR), StatusCode::kIoError);
}

// The async events a device context reports: those that break the
// connection fail it naming the event (the port's with what it means), the
// others are left. (The VM's failover run takes a real port down.)
TEST(VerbsCompletionStatusTest, AsyncEventsThatBreakTheConnectionAreNamed) {
  const std::optional<Status> port = AsyncEventFailure(IBV_EVENT_PORT_ERR, 0);
  ASSERT_TRUE(port.has_value());
  EXPECT_EQ(port->code(), StatusCode::kConnectionLost);
  EXPECT_EQ(port->message(), "verbs: async event: port error (the port went down: its link is "
                             "down or unplugged)");
  const std::optional<Status> qp = AsyncEventFailure(IBV_EVENT_QP_FATAL, 0x1a2);
  ASSERT_TRUE(qp.has_value());
  EXPECT_EQ(qp->message(), "verbs: async event on QP 0x1a2: local work queue catastrophic error");
  EXPECT_TRUE(AsyncEventFailure(IBV_EVENT_DEVICE_FATAL, 0).has_value());
  EXPECT_TRUE(AsyncEventFailure(IBV_EVENT_CQ_ERR, 0).has_value());
  for (ibv_event_type left : {IBV_EVENT_PORT_ACTIVE, IBV_EVENT_GID_CHANGE, IBV_EVENT_LID_CHANGE,
                              IBV_EVENT_COMM_EST, IBV_EVENT_SQ_DRAINED}) {
    EXPECT_FALSE(AsyncEventFailure(left, 0).has_value()) << ibv_event_type_str(left);
  }
}

TEST(VerbsCompletionStatusTest, MessageNamesTheOperationStreamAndVerbsStatus) {
  Status s = CompletionError(IBV_WC_REM_ACCESS_ERR, 0x88, WrOp::kWrite, 2, 4096);
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_NE(s.message().find("RDMA WRITE"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("stream 2"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR)), std::string::npos)
      << s.message();
  Status retry = CompletionError(IBV_WC_RETRY_EXC_ERR, 0, WrOp::kRead, 0, 8);
  EXPECT_NE(retry.message().find("RDMA READ"), std::string::npos) << retry.message();
}

TEST(VerbsAccessFlagsTest, RegionsGrantWhatTheirOptionsPermit) {
  EXPECT_EQ(AccessFlagsFor(Access::kNone), IBV_ACCESS_LOCAL_WRITE);
  EXPECT_EQ(AccessFlagsFor(Access::kRemoteRead), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
  EXPECT_EQ(AccessFlagsFor(Access::kRemoteWrite), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  EXPECT_EQ(AccessFlagsFor(Access::kRemoteReadWrite),
            IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
                IBV_ACCESS_REMOTE_ATOMIC);
}

}  // namespace
}  // namespace xfer::transport::verbs
