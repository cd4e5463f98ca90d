// Failover on a StripedEndpoint over two real rails of each transport that
// stripes (tcp on loopback; verbs where an RDMA device is, as in the
// Soft-RoCE VM), one of them behind a fault-injecting wrapper (support/faulty_endpoint.h): a rail
// lost mid-stream -- by count of posts, or while requests are in flight,
// which closes its real endpoint under them -- costs no request and no
// byte; notifications still follow every byte; with no rail left,
// requests fail at once naming each rail and why it went down.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/request_access.h"
#include "core/striped_endpoint.h"
#include "core/failover_fixture.h"
#include "support/byte_pattern.h"
#include "support/endpoint_pair.h"
#include "support/faulty_endpoint.h"
#include "support/rail_pair.h"
#include "support/test_memory.h"
#include "support/transport_capabilities.h"

namespace xfer::core {
namespace {

using namespace std::chrono_literals;
using xfer::testing::Addr;
using xfer::testing::Bytes;
using xfer::testing::FaultyEndpoint;

class FailoverTest : public FailoverFixture {};

// Rail 1 is lost at its sixth post, inside the first request (it refuses
// new posts; what it had completes): that request and every one after
// complete OK, every byte is in place, and rail 1 is down, naming why.
TEST_P(FailoverTest, ARailLostMidStreamCostsNoRequestAndNoByte) {
  ASSERT_NO_FATAL_FAILURE(
      Connect(1, {.lose_after_posts = 5, .loss = FaultyEndpoint::Loss::kRefuse}));
  ASSERT_NO_FATAL_FAILURE(WriteAll(7));
  EXPECT_TRUE(faulty_->lost());
  EXPECT_FALSE(striped().Stats(1).up);
  EXPECT_TRUE(striped().Stats(0).up);
  EXPECT_NE(striped().Failure(1).find("injected: the rail is lost"), std::string::npos)
      << striped().Failure(1);
  EXPECT_EQ(striped().Failure(0), "");
  // After the loss, rail 1 is dealt nothing: its posts stop where it died.
  EXPECT_LE(faulty_->posts(), 6u + 32u);
  EXPECT_EQ(striped().Stats(0).in_flight + striped().Stats(1).in_flight, 0u);
}

// The link goes down while READs are in flight on it: its real endpoint is
// closed under them (what a dead socket does), and they are dealt again: a
// retried READ reads its bytes again. (WRITEs in flight on a lost rail wait
// for the fence: the peer may still land their bytes after the retry.)
TEST_P(FailoverTest, RequestsInFlightOnALostRailAreDealtAgainAndCompleteWhole) {
  ASSERT_NO_FATAL_FAILURE(Connect(1, {}));
  xfer::testing::FillPattern(Bytes(remote_), kRegion, 9);
  std::memset(Bytes(local_), 0, kRegion);
  ASSERT_NO_FATAL_FAILURE(MoveAllLosingTheRailMidStream(OpCode::kRead));
  EXPECT_EQ(xfer::testing::FirstPatternMismatch(Bytes(local_), kRegion, 9), kRegion);
  EXPECT_FALSE(striped().Stats(1).up);
  // The record: rail 1 went down once, for the failure it names, and the
  // slices it had in flight were dealt again on rail 0.
  const std::vector<RailEvent> events = striped().Events(1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_FALSE(events[0].up);
  EXPECT_EQ(events[0].reason, striped().Failure(1));
  EXPECT_LE(events[0].at, std::chrono::system_clock::now());
  EXPECT_GT(striped().RetriedBytes(1), 0u);
  EXPECT_EQ(striped().RetriedBytes(0), 0u);
  EXPECT_TRUE(striped().Events(0).empty());
}

// A rail that fails silently -- it takes posts and never completes or fails
// them, as a link that drops every frame does -- is found by the slice
// timeout: taken down with kTimeout, its slices in flight dealt again, and
// every request completes whole, within the timeout and a little (300 ms
// over tcp, 2 s over the VM's emulated verbs).
TEST_P(FailoverTest, ASilentRailIsLeftAfterTheSliceTimeoutAndItsSlicesDealtAgain) {
  StripedEndpoint::Options options;
  options.slice_timeout = SliceTimeout();
  ASSERT_NO_FATAL_FAILURE(Connect(1, {.loss = FaultyEndpoint::Loss::kStall}, options));
  xfer::testing::FillPattern(Bytes(remote_), kRegion, 11);
  std::memset(Bytes(local_), 0, kRegion);
  std::vector<TransferRequest> requests(kRegion / kRequest);
  std::vector<TransferEntry> entries;
  for (size_t offset = 0; offset < kRegion; offset += kRequest) entries.push_back(Entry(offset));
  // The first request goes through whole: both rails carry and are fast.
  ASSERT_TRUE(pair_.initiator->PostRead({&entries[0], 1}, requests[0], 0).ok());
  ASSERT_TRUE(requests[0].Wait(10s).ok()) << requests[0].Test().ToString();
  faulty_->Lose();
  const auto lost_at = std::chrono::steady_clock::now();
  for (size_t i = 1; i < requests.size(); ++i) {
    ASSERT_TRUE(pair_.initiator->PostRead({&entries[i], 1}, requests[i], 0).ok());
  }
  for (size_t i = 1; i < requests.size(); ++i) {
    ASSERT_TRUE(requests[i].Wait(10s).ok()) << i << ": " << requests[i].Test().ToString();
    EXPECT_EQ(requests[i].bytes(), kRequest) << i;
  }
  const auto recovered = std::chrono::steady_clock::now() - lost_at;
  EXPECT_GE(recovered, SliceTimeout());  // nothing told of the loss but the silence
  EXPECT_LT(recovered, SliceTimeout() + 3s);
  EXPECT_EQ(xfer::testing::FirstPatternMismatch(Bytes(local_), kRegion, 11), kRegion);
  EXPECT_FALSE(striped().Stats(1).up);
  EXPECT_TRUE(striped().Stats(0).up);
  EXPECT_EQ(striped().Failure(1).rfind("timeout: silent: slices in flight and none completed for",
                                       0),
            0u)
      << striped().Failure(1);
}

// A request cancelled while its slices wait on a silent rail ends as a
// cancel would without failover (Engine::Cancel): once its slices end,
// with kCancelled, and none of them is dealt again to move more bytes.
TEST_P(FailoverTest, ARequestCancelledDuringRecoveryIsNotDealtAgain) {
  StripedEndpoint::Options options;
  options.slice_timeout = SliceTimeout();
  ASSERT_NO_FATAL_FAILURE(Connect(1, {.loss = FaultyEndpoint::Loss::kStall}, options));
  faulty_->Lose();
  const TransferEntry entry = Entry(0);
  TransferRequest request;
  ASSERT_TRUE(pair_.initiator->PostRead({&entry, 1}, request, 0).ok());
  internal::RequestAccess::Preempt(request, Cancelled("cancelled by the test"));
  const Status ended = request.Wait(SliceTimeout() + 5s);
  EXPECT_EQ(ended.code(), StatusCode::kCancelled) << ended.ToString();
  EXPECT_FALSE(striped().Stats(1).up);  // the silence was found all the same
  EXPECT_EQ(striped().RetriedBytes(1), 0u) << "a cancelled request's slices were dealt again";
}

// A deep queue is not silence: slices queue on a healthy rail and complete,
// each within the timeout of the one before, though the last waits longer.
TEST_P(FailoverTest, ADeepQueueOnAHealthyRailIsNotTakenForSilent) {
  StripedEndpoint::Options options;
  options.slice_timeout = SliceTimeout();
  ASSERT_NO_FATAL_FAILURE(Connect(1, {}, options));
  xfer::testing::FillPattern(Bytes(local_), kRegion, 12);
  // Fewer over the VM's emulated verbs (0.13 Gb/s a rail): each round's
  // queue is as deep.
  const int rounds = GetParam() == "verbs" ? 3 : 8;
  for (int round = 0; round < rounds; ++round) {
    std::vector<TransferRequest> requests(kRegion / kRequest);
    std::vector<TransferEntry> entries;
    for (size_t offset = 0; offset < kRegion; offset += kRequest) entries.push_back(Entry(offset));
    for (size_t i = 0; i < requests.size(); ++i) {
      ASSERT_TRUE(pair_.initiator->PostWrite({&entries[i], 1}, requests[i], 0).ok());
    }
    for (TransferRequest& request : requests) {
      ASSERT_TRUE(request.Wait(10s).ok()) << request.Test().ToString();
    }
  }
  EXPECT_TRUE(striped().Stats(0).up) << striped().Failure(0);
  EXPECT_TRUE(striped().Stats(1).up) << striped().Failure(1);
}

// Rail 0 carries the notifications: lost, they go on rail 1, still behind
// every byte of their request.
TEST_P(FailoverTest, WithRail0LostNotificationsGoOnAnotherRailBehindTheirBytes) {
  ASSERT_NO_FATAL_FAILURE(
      Connect(0, {.lose_after_posts = 3, .loss = FaultyEndpoint::Loss::kRefuse}));
  for (uint32_t round = 0; round < 4; ++round) {
    xfer::testing::FillPattern(Bytes(local_), kRequest, 20 + round);
    const TransferEntry entry = Entry(0);
    TransferRequest write;
    ASSERT_TRUE(pair_.initiator->PostWrite({&entry, 1}, write, 1).ok());
    const std::string note = "block " + std::to_string(round);
    TransferRequest notify;
    ASSERT_TRUE(pair_.initiator
                    ->PostNotify({reinterpret_cast<const uint8_t*>(note.data()), note.size()},
                                 notify, 1)
                    .ok());
    const std::vector<std::string> got = pair_.target_notes.WaitFor(round + 1, 10s);
    ASSERT_EQ(got.size(), round + 1);
    EXPECT_EQ(got.back(), note);
    EXPECT_EQ(xfer::testing::FirstPatternMismatch(Bytes(remote_), kRequest, 20 + round),
              kRequest)
        << "notification " << round << " arrived before its bytes";
    ASSERT_TRUE(write.Wait(10s).ok()) << write.Test().ToString();
    ASSERT_TRUE(notify.Wait(10s).ok()) << notify.Test().ToString();
  }
  EXPECT_FALSE(striped().Stats(0).up);
}

// Messages keep to rail 0 (engine.h, PostSend): with rail 0 down, a send
// and a receive fail at once naming it, while WRITEs carry on over rail 1.
TEST_P(FailoverTest, WithRail0DownMessagesFailAtOnceAndWritesCarryOn) {
  ASSERT_NO_FATAL_FAILURE(
      Connect(0, {.lose_after_posts = 1, .loss = FaultyEndpoint::Loss::kRefuse}));
  xfer::testing::FillPattern(Bytes(local_), kRequest, 31);
  const TransferEntry entry = Entry(0);
  for (int round = 0; round < 2; ++round) {  // the second finds rail 0 down
    TransferRequest write;
    ASSERT_TRUE(pair_.initiator->PostWrite({&entry, 1}, write, 0).ok());
    ASSERT_TRUE(write.Wait(10s).ok()) << write.Test().ToString();
  }
  EXPECT_EQ(xfer::testing::FirstPatternMismatch(Bytes(remote_), kRequest, 31), kRequest);
  ASSERT_FALSE(striped().Stats(0).up);
  TransferRequest send;
  const Status sent = pair_.initiator->PostSend(Bytes(local_), 64, send, 0);
  EXPECT_EQ(sent.code(), StatusCode::kConnectionLost) << sent.ToString();
  EXPECT_NE(sent.message().find("rail 0, which alone carries messages"), std::string::npos)
      << sent.ToString();
  EXPECT_NE(sent.message().find("injected: the rail is lost"), std::string::npos)
      << sent.ToString();
  TransferRequest receive;
  EXPECT_EQ(pair_.initiator->PostRecv(Bytes(local_), 64, receive).code(),
            StatusCode::kConnectionLost);
}

// Both rails lost: the request fails with kConnectionLost naming each rail
// and why; later ones fail at once, without posting.
TEST_P(FailoverTest, WithNoRailLeftRequestsFailAtOnceNamingEachRail) {
  ASSERT_NO_FATAL_FAILURE(Connect(1, {}));
  faulty_->Lose();
  // Rail 0 dies too: its real endpoint closed (a second cable pulled).
  pair_.target->Close();
  const TransferEntry entry = Entry(0);
  TransferRequest request;
  const auto start = std::chrono::steady_clock::now();
  Status posted = pair_.initiator->PostWrite({&entry, 1}, request, 0);
  if (posted.ok()) posted = request.Wait(10s);
  // Within the rails' io_timeout (5 s) and a margin: verbs learns that
  // its peer closed when the queue pair's retries run out or the timeout
  // passes, tcp at once.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 8s);
  ASSERT_EQ(posted.code(), StatusCode::kConnectionLost) << posted.ToString();
  EXPECT_NE(posted.message().find("rail 0: "), std::string::npos) << posted.ToString();
  EXPECT_NE(posted.message().find("rail 1: "), std::string::npos) << posted.ToString();
  EXPECT_NE(posted.message().find("injected"), std::string::npos) << posted.ToString();
  TransferRequest later;
  const Status refused = pair_.initiator->PostWrite({&entry, 1}, later, 0);
  EXPECT_EQ(refused.code(), StatusCode::kConnectionLost) << refused.ToString();
}

INSTANTIATE_TEST_SUITE_P(Transports, FailoverTest, ::testing::ValuesIn(RailTransports()),
                         [](const auto& test) { return test.param; });

}  // namespace
}  // namespace xfer::core
