// A failed rail comes back (RailRecovery over StripedEndpoint::Rejoin): both
// ends of a striped connection over two real rails agree over their control
// connection to set the rail up again, and it carries traffic again; a
// rail only the peer lost is reported and brought back; one that cannot be
// set up again is left down saying why. Plus the protocol's messages, which
// come from the peer and are checked byte by byte, and the backoff.
#include "core/rail_recovery.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/failover_fixture.h"
#include "support/byte_pattern.h"

namespace xfer::core {
namespace {

using Kind = RailMessage::Kind;

// What each stream of WRITEs moves: 64 slices over the two rails.
constexpr size_t kStream = 2 * kRequest;

TEST(RailMessageTest, EachKindRoundTrips) {
  for (const RailMessage& sent : {RailMessage{Kind::kRejoin, 3, 17, {}},
                                  RailMessage{Kind::kReady, 0, 0xfffffffe, {}},
                                  RailMessage{Kind::kFence, 2, 4, {}},
                                  RailMessage{Kind::kFenced, 2, 4, {}},
                                  RailMessage{Kind::kRefuse, 15, 9, "region 4 is gone"},
                                  RailMessage{Kind::kDown, 1, 0, "io error: flushed"}}) {
    const std::vector<uint8_t> bytes = EncodeRailMessage(sent);
    auto got = DecodeRailMessage(bytes, 16);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(got->has_value());
    EXPECT_EQ((*got)->kind, sent.kind);
    EXPECT_EQ((*got)->rail, sent.rail);
    EXPECT_EQ((*got)->attempt, sent.attempt);
    EXPECT_EQ((*got)->reason, sent.reason);
  }
}

// Left over from a setup attempt that failed part way: skipped, not an
// error.
TEST(RailMessageTest, AnotherProtocolsMessageIsNotOurs) {
  for (const std::vector<uint8_t>& other :
       {std::vector<uint8_t>{}, std::vector<uint8_t>{'X', 'R', 'L'},
        std::vector<uint8_t>{'X', 'R', 'L', '2', 1, 0, 0, 0, 0, 0, 0, 0},
        std::vector<uint8_t>(300, 0x5a)}) {
    auto got = DecodeRailMessage(other, 2);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_FALSE(got->has_value());
  }
}

TEST(RailMessageTest, MalformedMessagesOfOursAreRefusedNamingWhy) {
  const std::vector<uint8_t> good = EncodeRailMessage({Kind::kRejoin, 1, 5, {}});
  auto refused = [](std::vector<uint8_t> bytes, uint32_t rails, const std::string& words) {
    auto got = DecodeRailMessage(bytes, rails);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kProtocolError);
    EXPECT_NE(got.status().message().find(words), std::string::npos) << got.status().ToString();
  };
  refused({good.begin(), good.begin() + 8}, 2, "below the 12-byte header");
  for (const uint8_t kind : {uint8_t{0}, uint8_t{7}, uint8_t{255}}) {
    std::vector<uint8_t> bytes = good;
    bytes[4] = kind;
    refused(bytes, 2, "unknown message kind");
  }
  refused(good, 1, "named rail 1; the connection has 1");
  std::vector<uint8_t> reserved = good;
  reserved[7] = 1;
  refused(reserved, 2, "reserved bytes");
  std::vector<uint8_t> trailing = good;
  trailing.push_back('x');
  refused(trailing, 2, "trailing bytes");
  std::vector<uint8_t> long_reason = EncodeRailMessage({Kind::kDown, 1, 0, "x"});
  long_reason.resize(long_reason.size() + RailMessage::kMaxReason, 'y');
  refused(long_reason, 2, "reason, above the 1024 allowed");
}

TEST(RejoinBackoffTest, DoublesToItsMostAndOneSuccessClearsIt) {
  RejoinBackoff backoff(std::chrono::milliseconds(500), std::chrono::milliseconds(4000));
  EXPECT_EQ(backoff.Next().count(), 500);
  for (const int expected : {1000, 2000, 4000, 4000}) {
    backoff.Failed();
    EXPECT_EQ(backoff.Next().count(), expected);
  }
  backoff.Succeeded();
  EXPECT_EQ(backoff.Next().count(), 500);
}

class RailRecoveryTest : public FailoverFixture {
 protected:
  void TearDown() override {
    // Before the endpoints they use.
    for (auto& recovery : recoveries_) recovery.reset();
  }

  static RailRecovery::Options Quick() {
    RailRecovery::Options options;
    options.backoff = 20ms;
    options.max_backoff = 200ms;
    options.attempt_timeout = 5000ms;
    return options;
  }

  // Starts one end's recovery over the pair's control connection, which
  // fences that end's failed rails; its fresh endpoints are set up as
  // ConnectPair set up the first ones.
  void StartOne(bool initiator, RailRecovery::Options options,
                std::function<Status(uint32_t)> check = [](uint32_t) { return Status::Ok(); },
                std::chrono::milliseconds fence_timeout = 5s) {
    RailRecovery::Paths paths;
    paths.check = std::move(check);
    paths.set_up = [this, initiator](uint32_t,
                                     Deadline deadline) -> Result<std::unique_ptr<transport::Endpoint>> {
      // A failure at connect, injected on both sides alike.
      std::atomic<int>& calls = set_ups_[initiator ? 0 : 1];
      if (initiator) {
        std::lock_guard lock(set_up_mu_);
        set_up_times_.push_back(std::chrono::steady_clock::now());
      }
      if (calls.fetch_add(1) < failing_set_ups_) {
        return ConnectionLost("injected: the rail cannot connect");
      }
      transport::Transport& transport = initiator ? *initiator_transport_ : *target_transport_;
      transport::EndpointSetup setup =
          xfer::testing::PairSetup(pair_, initiator, 2, 5000ms, deadline);
      auto endpoint = transport.CreateEndpoint(setup);
      if (!endpoint.ok() || !initiator || !rewrap_) return endpoint;
      return std::unique_ptr<transport::Endpoint>(
          std::make_unique<FaultyEndpoint>(std::move(endpoint.value()), *rewrap_));
    };
    options.initiator = initiator;
    auto started = RailRecovery::Start(initiator ? pair_.initiator_control : pair_.target_control,
                                       initiator ? striped() : target_striped(), std::move(paths),
                                       options);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    RailRecovery* recovery = started->get();
    (initiator ? striped() : target_striped())
        .SetFence([recovery](uint32_t rail, Deadline deadline) {
          return recovery->Fence(rail, deadline);
        }, fence_timeout);
    recoveries_[initiator ? 0 : 1] = std::move(started.value());
  }
  void StartBoth(RailRecovery::Options options = Quick()) {
    ASSERT_NO_FATAL_FAILURE(StartOne(true, options));
    ASSERT_NO_FATAL_FAILURE(StartOne(false, options));
  }

  static bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(5ms);
    }
    return true;
  }
  bool BothUp(uint32_t rail) {
    return striped().Stats(rail).up && target_striped().Stats(rail).up;
  }

  // Set before StartOne: how many setups of a rail fail on each side
  // before one goes through, and what wraps the initiator's fresh
  // endpoints.
  int failing_set_ups_ = 0;
  std::optional<FaultyEndpoint::Faults> rewrap_;
  std::atomic<int> set_ups_[2] = {0, 0};
  std::mutex set_up_mu_;
  std::vector<std::chrono::steady_clock::time_point> set_up_times_;  // GUARDED_BY(set_up_mu_)
  std::unique_ptr<RailRecovery> recoveries_[2];  // the initiator's, the target's
};

// The protocol's logic, which no transport changes: over tcp only. (What
// a transport does for a rail's return -- a fresh endpoint that carries
// WRITEs, READs and messages, a fence under WRITEs in flight -- runs on
// every one, above.)
class RailRecoveryLogicTest : public RailRecoveryTest {};

// Rail 1 fails under a stream of WRITEs; both ends set it up again over
// the control connection, and the next stream uses it again. Its record:
// down for the failure, then up.
TEST_P(RailRecoveryTest, ALostRailComesBackAndCarriesTrafficAgain) {
  ASSERT_NO_FATAL_FAILURE(
      Connect(1, {.lose_after_posts = 5, .loss = FaultyEndpoint::Loss::kRefuse}));
  ASSERT_NO_FATAL_FAILURE(StartBoth());
  ASSERT_NO_FATAL_FAILURE(WriteAll(41, kStream));
  ASSERT_TRUE(WaitFor([&] { return BothUp(1) && striped().Events(1).size() == 2; }, 10s))
      << "rail 1 did not come back: " << striped().Failure(1) << " / "
      << recoveries_[0]->Ended() << " / " << recoveries_[1]->Ended();
  const uint64_t before = striped().Stats(1).bytes;
  ASSERT_NO_FATAL_FAILURE(WriteAll(42, kStream));
  EXPECT_GT(striped().Stats(1).bytes, before) << "the returned rail carried nothing";
  EXPECT_EQ(striped().Failure(1), "");

  const std::vector<RailEvent> events = striped().Events(1);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_FALSE(events[0].up);
  EXPECT_NE(events[0].reason.find("injected: the rail is lost"), std::string::npos)
      << events[0].reason;
  EXPECT_TRUE(events[1].up);
  EXPECT_EQ(events[1].reason, "rejoined: set up again with the peer");
  EXPECT_LE(events[0].at, events[1].at);
  // The target's end was healthy: it left it when asked -- to fence it
  // (the lost rail's posts failed after they were taken) or to set it up
  // again, whichever came first -- then set it up.
  const std::vector<RailEvent> target = target_striped().Events(1);
  ASSERT_EQ(target.size(), 2u);
  EXPECT_FALSE(target[0].up);
  EXPECT_TRUE(target[0].reason ==
                  "connection lost: the peer fenced the rail, to deal the WRITEs it failed "
                  "again elsewhere" ||
              target[0].reason == "connection lost: the peer is setting the rail up again")
      << target[0].reason;
  EXPECT_EQ(target[1].reason, "rejoined: set up again at the peer's request");
  EXPECT_TRUE(striped().Events(0).empty());
}

// Rail 0 carries the messages: down, they fail; back, they flow again.
TEST_P(RailRecoveryTest, MessagesFlowAgainOnceRail0IsBack) {
  ASSERT_NO_FATAL_FAILURE(
      Connect(0, {.lose_after_posts = 1, .loss = FaultyEndpoint::Loss::kRefuse}));
  ASSERT_NO_FATAL_FAILURE(StartBoth());
  ASSERT_NO_FATAL_FAILURE(WriteAll(43, kStream));
  ASSERT_TRUE(WaitFor([&] { return BothUp(0) && striped().Events(0).size() == 2; }, 10s))
      << striped().Failure(0);
  TransferRequest receive;
  ASSERT_TRUE(pair_.target->PostRecv(Bytes(remote_), 64, receive).ok());
  xfer::testing::FillPattern(Bytes(local_), 64, 44);
  TransferRequest send;
  ASSERT_TRUE(pair_.initiator->PostSend(Bytes(local_), 64, send, 0).ok());
  ASSERT_TRUE(send.Wait(10s).ok()) << send.Test().ToString();
  ASSERT_TRUE(receive.Wait(10s).ok()) << receive.Test().ToString();
  EXPECT_EQ(receive.bytes(), 64u);
  EXPECT_EQ(xfer::testing::FirstPatternMismatch(Bytes(remote_), 64, 44), 64u);
}

// Only the target's end failed (a silent link under its own WRITEs would):
// it reports the rail, the initiator leaves its end too, and both set it
// up again.
TEST_P(RailRecoveryLogicTest, ARailOnlyThePeerLostIsReportedAndBroughtBack) {
  ASSERT_NO_FATAL_FAILURE(Connect(1, {}));
  ASSERT_NO_FATAL_FAILURE(StartBoth());
  target_striped().Leave(1, ConnectionLost("the test pulled the target's cable"));
  ASSERT_TRUE(WaitFor([&] { return BothUp(1) && striped().Events(1).size() == 2; }, 10s))
      << striped().Failure(1) << " / " << target_striped().Failure(1);
  const std::vector<RailEvent> events = striped().Events(1);
  EXPECT_EQ(events[0].reason,
            "connection lost: the peer lost the rail: connection lost: the test pulled the "
            "target's cable");
  EXPECT_TRUE(events[1].up);
  const uint64_t before = striped().Stats(1).bytes;
  ASSERT_NO_FATAL_FAILURE(WriteAll(45, kStream));
  EXPECT_GT(striped().Stats(1).bytes, before);
}

// The target cannot set the rail up again (a region it announced at
// connect is gone): the rail stays down, its record saying why, and is not
// tried again; traffic carries on over rail 0.
TEST_P(RailRecoveryLogicTest, ARailThatCannotBeSetUpAgainIsLeftDownSayingWhy) {
  ASSERT_NO_FATAL_FAILURE(
      Connect(1, {.lose_after_posts = 5, .loss = FaultyEndpoint::Loss::kRefuse}));
  ASSERT_NO_FATAL_FAILURE(StartOne(true, Quick()));
  ASSERT_NO_FATAL_FAILURE(StartOne(false, Quick(), [](uint32_t) {
    return FailedPrecondition("region 7 has been deregistered since");
  }));
  ASSERT_NO_FATAL_FAILURE(WriteAll(46, kStream));
  ASSERT_TRUE(WaitFor([&] { return striped().Events(1).size() == 2; }, 10s));
  const std::vector<RailEvent> events = striped().Events(1);
  EXPECT_FALSE(events[1].up);
  EXPECT_EQ(events[1].reason,
            "not brought back: the peer cannot set it up again: region 7 has been deregistered "
            "since; connect again to use it");
  std::this_thread::sleep_for(300ms);  // more than the backoff's most
  EXPECT_EQ(striped().Events(1).size(), 2u) << "tried again";
  EXPECT_FALSE(striped().Stats(1).up);
  ASSERT_NO_FATAL_FAILURE(WriteAll(47, kStream));
}

// The link dies under WRITEs in flight: the real endpoint is closed under
// them, while the target's end still holds bytes it received and had not
// yet placed. The slices are dealt again only once the target has
// abandoned its end (the fence), so none of those bytes lands after the
// retried slice has (ThreadSanitizer would see the two writers of one
// byte; the bytes are checked too). Then the rail comes back.
TEST_P(RailRecoveryTest, WritesInFlightOnALostRailAreDealtAgainOnlyOnceThePeerIsFenced) {
  ASSERT_NO_FATAL_FAILURE(Connect(1, {.loss = FaultyEndpoint::Loss::kClose}));
  ASSERT_NO_FATAL_FAILURE(StartBoth());
  xfer::testing::FillPattern(Bytes(local_), kRegion, 48);
  ASSERT_NO_FATAL_FAILURE(MoveAllLosingTheRailMidStream(OpCode::kWrite));
  EXPECT_EQ(xfer::testing::FirstPatternMismatch(Bytes(remote_), kRegion, 48), kRegion);
  EXPECT_GT(striped().RetriedBytes(1), 0u);
  // The target left its end when fenced; nothing was dealt again unfenced.
  const std::vector<RailEvent> target = target_striped().Events(1);
  ASSERT_FALSE(target.empty());
  EXPECT_EQ(target[0].reason,
            "connection lost: the peer fenced the rail, to deal the WRITEs it failed again "
            "elsewhere");
  for (const RailEvent& event : striped().Events(1)) {
    EXPECT_EQ(event.reason.find("unfenced"), std::string::npos) << event.reason;
  }
  ASSERT_TRUE(WaitFor([&] { return BothUp(1); }, 10s)) << striped().Failure(1);
  ASSERT_NO_FATAL_FAILURE(WriteAll(49, kStream));
}

// No peer answers the fence (its recovery does not run): after the fence's
// timeout, the WRITEs are dealt again all the same, and the rail's record
// says they went unfenced. (The rail swallowed them: nothing of theirs is
// at the peer to land late.)
TEST_P(RailRecoveryLogicTest, AFenceThePeerDoesNotAnswerIsSaidAndTheWritesGoOn) {
  StripedEndpoint::Options options;
  options.slice_timeout = SliceTimeout();
  ASSERT_NO_FATAL_FAILURE(Connect(1, {.loss = FaultyEndpoint::Loss::kStall}, options));
  RailRecovery::Options slow = Quick();
  slow.backoff = 60s;  // no attempt to bring it back meanwhile
  slow.max_backoff = 60s;
  ASSERT_NO_FATAL_FAILURE(
      StartOne(true, slow, [](uint32_t) { return Status::Ok(); }, 300ms));
  faulty_->Lose();
  ASSERT_NO_FATAL_FAILURE(WriteAll(50, kStream));
  const std::vector<RailEvent> events = striped().Events(1);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].reason.rfind("the WRITEs it failed were dealt again unfenced: timeout: the "
                                   "peer did not confirm",
                                   0),
            0u)
      << events[1].reason;
}

// The rail's setup fails three times (a link still down refuses the
// connection): each attempt waits twice as long as the one before, from
// the first wait (20 ms here) up to the most (200 ms), and the fourth
// brings the rail back.
TEST_P(RailRecoveryLogicTest, ASetupThatFailsIsTriedAgainEachTimeAfterTwiceTheWait) {
  failing_set_ups_ = 3;
  ASSERT_NO_FATAL_FAILURE(Connect(1, {}));
  ASSERT_NO_FATAL_FAILURE(StartBoth());
  striped().Leave(1, ConnectionLost("the test pulled the cable"));
  ASSERT_TRUE(WaitFor([&] { return BothUp(1); }, 10s)) << striped().Failure(1);
  std::lock_guard lock(set_up_mu_);
  ASSERT_EQ(set_up_times_.size(), 4u);
  for (size_t i = 1; i < set_up_times_.size(); ++i) {
    const auto waited = set_up_times_[i] - set_up_times_[i - 1];
    EXPECT_GE(waited, 20ms * (1 << i)) << "attempt " << i + 1;  // 40, 80, 160 ms
  }
  ASSERT_NO_FATAL_FAILURE(WriteAll(51, kStream));
  EXPECT_GT(striped().Stats(1).bytes, 0u);
}

// A flaky rail fails one post in nine, each time anew after it comes back:
// every request completes whole all the same, and the rail keeps
// returning (its record: down, up, down, up, ...).
TEST_P(RailRecoveryLogicTest, AFlakyRailIsBroughtBackEachTimeAndNoRequestFails) {
  const FaultyEndpoint::Faults flaky{.fail_one_in = 9};
  rewrap_ = flaky;
  ASSERT_NO_FATAL_FAILURE(Connect(1, flaky));
  ASSERT_NO_FATAL_FAILURE(StartBoth());
  for (uint32_t round = 0; round < 4; ++round) {
    ASSERT_NO_FATAL_FAILURE(WriteAll(60 + round, kStream));
    ASSERT_TRUE(WaitFor([&] { return BothUp(1); }, 10s)) << striped().Failure(1);
  }
  const std::vector<RailEvent> events = striped().Events(1);
  ASSERT_GE(events.size(), 4u);
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i].up, i % 2 == 1) << i;
  EXPECT_EQ(events[0].reason, "i/o error: injected: a flaky rail failed a post");
  EXPECT_GT(striped().RetriedBytes(1), 0u);
}

// A slow rail (each post held 2 ms, well within the slice timeout) is no
// failure: nothing goes down, and every byte lands.
TEST_P(RailRecoveryLogicTest, ASlowRailIsNoFailure) {
  StripedEndpoint::Options options;
  options.slice_timeout = SliceTimeout();
  ASSERT_NO_FATAL_FAILURE(Connect(1, {.delay = 2ms}, options));
  for (uint32_t round = 0; round < 2; ++round) {
    ASSERT_NO_FATAL_FAILURE(WriteAll(70 + round, kStream));
  }
  EXPECT_TRUE(striped().Stats(1).up) << striped().Failure(1);
  EXPECT_TRUE(striped().Events(1).empty());
  EXPECT_GT(striped().Stats(1).bytes, 0u);
}

// The peer never answers (its recovery does not run): Stop ends the
// attempt waiting for it at once, not at its timeout.
TEST_P(RailRecoveryLogicTest, StopEndsAnAttemptInProgressAtOnce) {
  ASSERT_NO_FATAL_FAILURE(Connect(1, {}));
  RailRecovery::Options options = Quick();
  options.attempt_timeout = 60s;
  ASSERT_NO_FATAL_FAILURE(StartOne(true, options));
  striped().Leave(1, ConnectionLost("the test pulled the cable"));
  std::this_thread::sleep_for(200ms);  // past the backoff: the attempt waits
  const auto start = std::chrono::steady_clock::now();
  recoveries_[0]->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_FALSE(striped().Stats(1).up);
}

INSTANTIATE_TEST_SUITE_P(Transports, RailRecoveryTest, ::testing::ValuesIn(RailTransports()),
                         [](const auto& test) { return test.param; });
INSTANTIATE_TEST_SUITE_P(Tcp, RailRecoveryLogicTest, ::testing::Values(std::string("tcp")),
                         [](const auto& test) { return test.param; });

}  // namespace
}  // namespace xfer::core
