// The schedule of a cluster matrix: which ranks move data to which, and
// which of those flows run at the same time.
//
// A flow is one initiator writing into (or reading from) one target. A step
// is a set of flows run concurrently, started together after a barrier; a
// round groups the steps of one set of pairs. The schemes:
//   pairwise    every unordered pair alone: N(N-1)/2 rounds of one pair,
//               each round two steps (a->b, then b->a). The isolated
//               capability of each pair, as a loop of perftest runs gives.
//   all-to-all  the round-robin (circle) schedule: N-1 rounds of N/2
//               disjoint pairs for even N, N rounds of (N-1)/2 pairs for odd
//               N (one rank sits out each round); each round two steps, so
//               every ordered pair is measured once, under the load of the
//               round's other pairs.
//   incast      one round, one step: every rank but the target into it.
//   fan-out     one round, one step: the source into every other rank at
//               once (the one step where a rank is the source of several
//               flows: it runs them concurrently).
//   ring        one round, one step: rank i into rank (i+1) mod N.
// Pure functions; thread-safe.
#ifndef XFER_BENCH_CLUSTER_CLUSTER_SCHEDULE_H_
#define XFER_BENCH_CLUSTER_CLUSTER_SCHEDULE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xfer/status.h"

namespace xfer::cluster {

enum class Scheme { kPairwise, kAllToAll, kIncast, kFanOut, kRing };

// "pairwise", "all-to-all", "incast", "fan-out", "ring".
const char* SchemeName(Scheme scheme);
// Errors: kInvalidArgument naming `name` and the valid names.
Result<Scheme> ParseScheme(std::string_view name);
// "pairwise, all-to-all, incast, fan-out, ring".
std::string SchemeNameList();

struct Flow {
  uint32_t source = 0;  // the initiator: it posts the transfers
  uint32_t target = 0;  // whose registered memory they reach
  bool operator==(const Flow&) const = default;
};

struct Step {
  uint32_t round = 0;       // from 0
  // Run concurrently. A rank is the source of one flow of a step, except
  // fan-out's source, which runs all of its flows at once.
  std::vector<Flow> flows;
};

// The steps of `scheme` over `ranks` ranks, in run order. `root` is the
// target of kIncast and the source of kFanOut, ignored otherwise. Errors:
// kInvalidArgument for fewer than 2 ranks or a root that is not a rank.
Result<std::vector<Step>> PlanSteps(Scheme scheme, uint32_t ranks, uint32_t root);

// The number of rounds in `steps` (the last step's round + 1; 0 when empty).
uint32_t RoundCount(const std::vector<Step>& steps);

}  // namespace xfer::cluster

#endif  // XFER_BENCH_CLUSTER_CLUSTER_SCHEDULE_H_
