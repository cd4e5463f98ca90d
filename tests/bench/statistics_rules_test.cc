// perftest's default-coupling rules (perftest.md §2.3, force_dependecies):
// peak on/off, cq_mod, tx_depth, rx_depth and the duration window.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench/model/statistics.h"

namespace xfer::bench {
namespace {

BenchParams WriteBwClient() {
  BenchParams p;
  p.verb = Verb::kWrite;
  p.kind = Kind::kBandwidth;
  p.role = Role::kClient;
  p.size = 65536;
  p.iterations = 5000;
  return p;
}

bool Contains(const std::vector<std::string>& lines, const std::string& s) {
  for (const std::string& line : lines) {
    if (line == s) return true;
  }
  return false;
}

const char kPeakWarning[] = " WARNING: BW peak won't be measured in this run.";

TEST(PeakDisabled, FollowsPerftestRules) {
  BenchParams p = WriteBwClient();
  EXPECT_FALSE(PeakDisabled(p));
  p.no_peak = true;
  EXPECT_TRUE(PeakDisabled(p));

  p = WriteBwClient();
  p.duration_s = 5;
  EXPECT_TRUE(PeakDisabled(p));

  p = WriteBwClient();
  p.iterations = 20000;
  EXPECT_FALSE(PeakDisabled(p));
  p.iterations = 20001;
  EXPECT_TRUE(PeakDisabled(p));

  p = WriteBwClient();
  p.verb = Verb::kSend;
  EXPECT_FALSE(PeakDisabled(p));  // the sender measures its own completions
  p.role = Role::kServer;
  EXPECT_TRUE(PeakDisabled(p));
  p.verb = Verb::kWrite;
  EXPECT_FALSE(PeakDisabled(p));  // only the SEND server is affected

  p = WriteBwClient();
  p.kind = Kind::kLatency;
  EXPECT_TRUE(PeakDisabled(p));
}

// perftest treats ATOMIC like WRITE/READ: the sender measures its own
// completions, on either side, and the size is a fixed 8 bytes.
TEST(PeakDisabled, AtomicIsLikeWriteAndRead) {
  BenchParams p = WriteBwClient();
  p.verb = Verb::kAtomic;
  p.size = 8;
  p.iterations = 1000;
  EXPECT_FALSE(PeakDisabled(p));
  p.role = Role::kServer;
  EXPECT_FALSE(PeakDisabled(p));

  p.role = Role::kClient;
  p.cq_mod = 100;
  p.rx_depth = 1;
  Result<EffectiveSettings> s = ResolveSettings(p, false);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->tx_depth, 128u);
  EXPECT_EQ(s->cq_mod, 100u);  // 8 bytes: no large-message rule
  EXPECT_EQ(s->rx_depth, 1u);  // no receives: not SEND's rounding
  EXPECT_FALSE(s->peak_disabled);
  EXPECT_TRUE(s->notices.empty());
}

TEST(ResolveSettings, DefaultsPassThrough) {
  Result<EffectiveSettings> s = ResolveSettings(WriteBwClient(), false);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->tx_depth, 128u);
  EXPECT_EQ(s->cq_mod, 1u);  // 65536 > 8192 and -Q not given
  EXPECT_FALSE(s->peak_disabled);
  EXPECT_TRUE(s->notices.empty());
}

TEST(ResolveSettings, LargeMessageCqModRule) {
  BenchParams p = WriteBwClient();
  p.size = 8192;  // the limit itself keeps the default
  EXPECT_EQ(ResolveSettings(p, false)->cq_mod, 100u);
  p.size = 8193;
  EXPECT_EQ(ResolveSettings(p, false)->cq_mod, 1u);

  p.all_sizes = true;  // -a keeps 100 for every size
  EXPECT_EQ(ResolveSettings(p, false)->cq_mod, 100u);

  p.all_sizes = false;  // an explicit -Q is kept, with perftest's warning
  Result<EffectiveSettings> given = ResolveSettings(p, true);
  ASSERT_TRUE(given.ok());
  EXPECT_EQ(given->cq_mod, 100u);
  EXPECT_TRUE(
      Contains(given->notices,
               "Warning: Large message requested and CQ moderation enabled"));
  p.cq_mod = 1;  // -Q 1 moderates nothing: no warning
  EXPECT_TRUE(ResolveSettings(p, true)->notices.empty());
}

TEST(ResolveSettings, TxDepthCappedToIterationsAndCqModToTxDepth) {
  BenchParams p = WriteBwClient();
  p.size = 64;
  p.iterations = 50;
  Result<EffectiveSettings> s = ResolveSettings(p, false);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->tx_depth, 50u);
  EXPECT_EQ(s->cq_mod, 50u);

  p.duration_s = 5;  // no cap in duration mode
  s = ResolveSettings(p, false);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->tx_depth, 128u);
  EXPECT_EQ(s->cq_mod, 100u);
}

TEST(ResolveSettings, PostListRules) {
  BenchParams p = WriteBwClient();
  p.size = 64;
  p.post_list = 4;
  Result<EffectiveSettings> s = ResolveSettings(p, false);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->cq_mod, 4u);
  EXPECT_TRUE(Contains(
      s->notices,
      "Post List requested - CQ moderation will be the size of the post list"));

  p.cq_mod = 2;  // -Q 2 divides -l 4
  s = ResolveSettings(p, true);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->cq_mod, 2u);
  p.cq_mod = 3;
  EXPECT_EQ(ResolveSettings(p, true).status().code(),
            StatusCode::kInvalidArgument);

  p = WriteBwClient();
  p.post_list = 3;  // 5000 % 3 != 0
  EXPECT_EQ(ResolveSettings(p, false).status().code(),
            StatusCode::kInvalidArgument);
  p.post_list = 256;  // more than tx_depth 128
  p.iterations = 5120;
  EXPECT_EQ(ResolveSettings(p, false).status().code(),
            StatusCode::kInvalidArgument);
  p = WriteBwClient();
  p.kind = Kind::kLatency;
  p.post_list = 2;
  EXPECT_EQ(ResolveSettings(p, false).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ResolveSettings, SendRxDepthCappedAndRoundedUpToEven) {
  BenchParams p = WriteBwClient();
  p.verb = Verb::kSend;
  p.role = Role::kServer;
  EXPECT_EQ(ResolveSettings(p, false)->rx_depth, 512u);
  p.iterations = 7;
  EXPECT_EQ(ResolveSettings(p, false)->rx_depth, 8u);  // 7, then even
  p.iterations = 1000;
  p.rx_depth = 511;
  EXPECT_EQ(ResolveSettings(p, false)->rx_depth, 512u);
  p.all_sizes = true;  // the round-up is RUN_REGULAR only
  EXPECT_EQ(ResolveSettings(p, false)->rx_depth, 511u);
  p.verb = Verb::kWrite;
  p.all_sizes = false;
  EXPECT_EQ(ResolveSettings(p, false)->rx_depth, 511u);  // not a SEND test
}

TEST(ResolveSettings, PeakWarningOnlyWhenARuleTurnsPeakOff) {
  BenchParams p = WriteBwClient();
  p.iterations = 20001;
  Result<EffectiveSettings> s = ResolveSettings(p, false);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->peak_disabled);
  EXPECT_TRUE(Contains(s->notices, kPeakWarning));

  p.no_peak = true;  // -N: off, but nothing to warn about
  s = ResolveSettings(p, false);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->peak_disabled);
  EXPECT_FALSE(Contains(s->notices, kPeakWarning));

  p = WriteBwClient();
  p.verb = Verb::kSend;
  p.role = Role::kServer;
  EXPECT_TRUE(Contains(ResolveSettings(p, false)->notices, kPeakWarning));

  p.kind = Kind::kLatency;  // latency tests have no peak to warn about
  EXPECT_FALSE(Contains(ResolveSettings(p, false)->notices, kPeakWarning));
}

TEST(ResolveSettings, RejectsZerosAndDurationWithAllSizes) {
  BenchParams p = WriteBwClient();
  p.tx_depth = 0;
  EXPECT_FALSE(ResolveSettings(p, false).ok());
  p = WriteBwClient();
  p.iterations = 0;
  EXPECT_FALSE(ResolveSettings(p, false).ok());
  p = WriteBwClient();
  p.duration_s = 5;
  p.all_sizes = true;
  EXPECT_EQ(ResolveSettings(p, false).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ResolveDurationWindow, MarginIsQuarterOfDurationByDefault) {
  BenchParams p = WriteBwClient();
  p.duration_s = 5;
  Result<DurationWindow> w = ResolveDurationWindow(p);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->margin_s, 1.0);  // integer 5 / 4
  EXPECT_EQ(w->sample_s, 3.0);

  p.duration_s = 60;  // issue #273: margin 15 -> a 30 s window
  w = ResolveDurationWindow(p);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->margin_s, 15.0);
  EXPECT_EQ(w->sample_s, 30.0);

  p.duration_s = 3;  // margin 0: the whole run is sampled
  EXPECT_EQ(ResolveDurationWindow(p)->sample_s, 3.0);
}

TEST(ResolveDurationWindow, ExplicitMarginAndItsLimit) {
  BenchParams p = WriteBwClient();
  p.duration_s = 10;
  p.margin_s = 2;
  Result<DurationWindow> w = ResolveDurationWindow(p);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->margin_s, 2.0);
  EXPECT_EQ(w->sample_s, 6.0);

  p.margin_s = 5;  // D must be > 2 * margin
  EXPECT_EQ(ResolveDurationWindow(p).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_FALSE(ResolveSettings(p, false).ok());

  p.duration_s = 0;  // not duration mode
  EXPECT_FALSE(ResolveDurationWindow(p).ok());
}

}  // namespace
}  // namespace xfer::bench
