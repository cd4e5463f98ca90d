#include "bench/cluster/cluster_schedule.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>

namespace xfer::cluster {
namespace {

std::vector<Step> Plan(Scheme scheme, uint32_t ranks, uint32_t incast_target = 0) {
  auto steps = PlanSteps(scheme, ranks, incast_target);
  EXPECT_TRUE(steps.ok()) << steps.status().ToString();
  return steps.ok() ? *steps : std::vector<Step>{};
}

// No rank is in two flows of one step, as source or as target.
void ExpectDisjoint(const std::vector<Step>& steps) {
  for (const Step& step : steps) {
    std::set<uint32_t> busy;
    for (const Flow& flow : step.flows) {
      EXPECT_NE(flow.source, flow.target);
      EXPECT_TRUE(busy.insert(flow.source).second) << "rank " << flow.source << " twice";
      EXPECT_TRUE(busy.insert(flow.target).second) << "rank " << flow.target << " twice";
    }
  }
}

// Every ordered pair (a, b), a != b, appears in exactly one flow.
void ExpectEveryOrderedPairOnce(const std::vector<Step>& steps, uint32_t ranks) {
  std::map<std::pair<uint32_t, uint32_t>, int> seen;
  for (const Step& step : steps) {
    for (const Flow& flow : step.flows) {
      ASSERT_LT(flow.source, ranks);
      ASSERT_LT(flow.target, ranks);
      ++seen[{flow.source, flow.target}];
    }
  }
  EXPECT_EQ(seen.size(), size_t{ranks} * (ranks - 1));
  for (const auto& [pair, count] : seen) {
    EXPECT_EQ(count, 1) << pair.first << "->" << pair.second;
  }
}

TEST(ClusterSchedule, AllToAllCoversEveryOrderedPairInDisjointRounds) {
  for (uint32_t ranks = 2; ranks <= 17; ++ranks) {
    SCOPED_TRACE(ranks);
    const std::vector<Step> steps = Plan(Scheme::kAllToAll, ranks);
    ExpectDisjoint(steps);
    ExpectEveryOrderedPairOnce(steps, ranks);
    // The circle method: N-1 rounds for even N, N for odd (a rank sits out).
    EXPECT_EQ(RoundCount(steps), ranks % 2 == 0 ? ranks - 1 : ranks);
    EXPECT_EQ(steps.size(), 2 * size_t{RoundCount(steps)});
    for (const Step& step : steps) EXPECT_EQ(step.flows.size(), size_t{ranks / 2});
  }
}

TEST(ClusterSchedule, AllToAllSecondStepOfARoundReversesTheFirst) {
  const std::vector<Step> steps = Plan(Scheme::kAllToAll, 6);
  for (size_t i = 0; i + 1 < steps.size(); i += 2) {
    ASSERT_EQ(steps[i].round, steps[i + 1].round);
    ASSERT_EQ(steps[i].flows.size(), steps[i + 1].flows.size());
    for (size_t f = 0; f < steps[i].flows.size(); ++f) {
      EXPECT_EQ(steps[i].flows[f].source, steps[i + 1].flows[f].target);
      EXPECT_EQ(steps[i].flows[f].target, steps[i + 1].flows[f].source);
    }
  }
}

TEST(ClusterSchedule, PairwiseRunsEachPairAloneBothWays) {
  const uint32_t ranks = 5;
  const std::vector<Step> steps = Plan(Scheme::kPairwise, ranks);
  ExpectEveryOrderedPairOnce(steps, ranks);
  EXPECT_EQ(RoundCount(steps), ranks * (ranks - 1) / 2);
  for (const Step& step : steps) EXPECT_EQ(step.flows.size(), 1u);
}

TEST(ClusterSchedule, IncastWritesEveryOtherRankIntoTheTarget) {
  const std::vector<Step> steps = Plan(Scheme::kIncast, 5, 3);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(RoundCount(steps), 1u);
  std::set<uint32_t> sources;
  for (const Flow& flow : steps[0].flows) {
    EXPECT_EQ(flow.target, 3u);
    sources.insert(flow.source);
  }
  EXPECT_EQ(sources, (std::set<uint32_t>{0, 1, 2, 4}));
}

TEST(ClusterSchedule, FanOutWritesTheSourceIntoEveryOtherRankAtOnce) {
  const std::vector<Step> steps = Plan(Scheme::kFanOut, 5, 2);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(RoundCount(steps), 1u);
  std::set<uint32_t> targets;
  for (const Flow& flow : steps[0].flows) {
    EXPECT_EQ(flow.source, 2u);
    targets.insert(flow.target);
  }
  EXPECT_EQ(targets, (std::set<uint32_t>{0, 1, 3, 4}));
  EXPECT_EQ(steps[0].flows.size(), 4u);
}

TEST(ClusterSchedule, RingSendsEachRankToItsSuccessor) {
  const std::vector<Step> steps = Plan(Scheme::kRing, 4);
  ASSERT_EQ(steps.size(), 1u);
  ASSERT_EQ(steps[0].flows.size(), 4u);
  for (const Flow& flow : steps[0].flows) EXPECT_EQ(flow.target, (flow.source + 1) % 4);
  // Two ranks: a ring is 0->1 and 1->0, not a flow twice.
  const std::vector<Step> two = Plan(Scheme::kRing, 2);
  ASSERT_EQ(two.size(), 1u);
  ExpectEveryOrderedPairOnce(two, 2);
}

TEST(ClusterSchedule, RefusesTooFewRanksAndAnIncastTargetOutsideTheRanks) {
  for (Scheme scheme : {Scheme::kPairwise, Scheme::kAllToAll, Scheme::kIncast, Scheme::kFanOut,
                        Scheme::kRing}) {
    auto one = PlanSteps(scheme, 1, 0);
    ASSERT_FALSE(one.ok()) << SchemeName(scheme);
    EXPECT_EQ(one.status().code(), StatusCode::kInvalidArgument);
  }
  auto outside = PlanSteps(Scheme::kIncast, 4, 4);
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("4"), std::string::npos)
      << outside.status().message();
  auto source = PlanSteps(Scheme::kFanOut, 3, 7);
  ASSERT_FALSE(source.ok());
  EXPECT_NE(source.status().message().find("fan-out source 7"), std::string::npos)
      << source.status().message();
}

TEST(ClusterSchedule, SchemeNamesRoundTripAndUnknownNamesListTheValidOnes) {
  for (Scheme scheme : {Scheme::kPairwise, Scheme::kAllToAll, Scheme::kIncast, Scheme::kRing}) {
    auto parsed = ParseScheme(SchemeName(scheme));
    ASSERT_TRUE(parsed.ok()) << SchemeName(scheme);
    EXPECT_EQ(*parsed, scheme);
  }
  auto bad = ParseScheme("alltoall");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("all-to-all"), std::string::npos);
  EXPECT_NE(bad.status().message().find("alltoall"), std::string::npos);
}

}  // namespace
}  // namespace xfer::cluster
