#include "bench/cluster/cluster_schedule.h"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

namespace xfer::cluster {
namespace {

constexpr std::array<std::pair<Scheme, const char*>, 5> kSchemes = {{
    {Scheme::kPairwise, "pairwise"},
    {Scheme::kAllToAll, "all-to-all"},
    {Scheme::kIncast, "incast"},
    {Scheme::kFanOut, "fan-out"},
    {Scheme::kRing, "ring"},
}};

// One round of unordered pairs as its two steps: every pair's lower-listed
// rank first as the source, then as the target.
void AddBothWays(uint32_t round, const std::vector<Flow>& pairs, std::vector<Step>& steps) {
  Step forth{round, pairs};
  Step back{round, {}};
  for (const Flow& pair : pairs) back.flows.push_back({pair.target, pair.source});
  steps.push_back(std::move(forth));
  steps.push_back(std::move(back));
}

// The circle method: rank `fixed` stays put while the others rotate one
// place per round; with an odd count a phantom rank joins, and whoever is
// paired with it sits the round out.
std::vector<Step> RoundRobin(uint32_t ranks) {
  const uint32_t slots = ranks + (ranks % 2);
  const uint32_t fixed = slots - 1;
  std::vector<Step> steps;
  for (uint32_t round = 0; round + 1 < slots; ++round) {
    std::vector<Flow> pairs;
    // Slot `fixed` meets `round`; then (round + k, round - k) mod (slots - 1).
    auto add = [&](uint32_t a, uint32_t b) {
      if (a < ranks && b < ranks) pairs.push_back({std::min(a, b), std::max(a, b)});
    };
    add(fixed, round);
    const uint32_t ring = slots - 1;
    for (uint32_t k = 1; k < slots / 2; ++k) {
      add((round + k) % ring, (round + ring - k) % ring);
    }
    AddBothWays(round, pairs, steps);
  }
  return steps;
}

}  // namespace

const char* SchemeName(Scheme scheme) {
  for (const auto& [value, name] : kSchemes) {
    if (value == scheme) return name;
  }
  return "?";
}

std::string SchemeNameList() {
  std::string list;
  for (const auto& [value, name] : kSchemes) {
    if (!list.empty()) list += ", ";
    list += name;
  }
  return list;
}

Result<Scheme> ParseScheme(std::string_view name) {
  for (const auto& [value, known] : kSchemes) {
    if (name == known) return value;
  }
  return InvalidArgument(
      fmt::format("'{}' is not a scheme (expected one of {})", name, SchemeNameList()));
}

Result<std::vector<Step>> PlanSteps(Scheme scheme, uint32_t ranks, uint32_t root) {
  if (ranks < 2) {
    return InvalidArgument(fmt::format(
        "a cluster matrix needs at least 2 ranks, this run has {} (start it with mpirun -np N)",
        ranks));
  }
  std::vector<Step> steps;
  switch (scheme) {
    case Scheme::kPairwise: {
      uint32_t round = 0;
      for (uint32_t a = 0; a < ranks; ++a) {
        for (uint32_t b = a + 1; b < ranks; ++b) AddBothWays(round++, {{a, b}}, steps);
      }
      break;
    }
    case Scheme::kAllToAll:
      steps = RoundRobin(ranks);
      break;
    case Scheme::kIncast:
    case Scheme::kFanOut: {
      const bool incast = scheme == Scheme::kIncast;
      if (root >= ranks) {
        return InvalidArgument(fmt::format("the {} {} is not a rank of this run (ranks 0..{})",
                                           incast ? "incast target" : "fan-out source", root,
                                           ranks - 1));
      }
      Step step{0, {}};
      for (uint32_t other = 0; other < ranks; ++other) {
        if (other == root) continue;
        step.flows.push_back(incast ? Flow{other, root} : Flow{root, other});
      }
      steps.push_back(std::move(step));
      break;
    }
    case Scheme::kRing: {
      Step step{0, {}};
      // Two ranks form a ring of one pair each way; the flows stay
      // distinct sources, so both run at once.
      for (uint32_t source = 0; source < ranks; ++source) {
        step.flows.push_back({source, (source + 1) % ranks});
      }
      steps.push_back(std::move(step));
      break;
    }
  }
  return steps;
}

uint32_t RoundCount(const std::vector<Step>& steps) {
  return steps.empty() ? 0 : steps.back().round + 1;
}

}  // namespace xfer::cluster
