#include "core/rail_pairing.h"

#include <algorithm>

namespace xfer::core {
namespace {

double SlowerRate(double a, double b) { return a > 0 && b > 0 ? std::min(a, b) : 0; }

}  // namespace

std::vector<transport::RailCandidate> AutoRailEnds(std::span<const transport::RailCandidate> ends,
                                                   std::span<const std::string> nearest) {
  std::vector<transport::RailCandidate> chosen;
  for (size_t i = 0; i < ends.size(); ++i) {
    if (i == 0 || std::find(nearest.begin(), nearest.end(), ends[i].name) != nearest.end()) {
      chosen.push_back(ends[i]);
    }
  }
  return chosen;
}

std::vector<RailPair> PairRails(std::span<const transport::RailCandidate> acceptor,
                                std::span<const transport::RailCandidate> initiator,
                                uint32_t requested, uint32_t max_rails) {
  std::vector<RailPair> distinct;
  std::vector<bool> taken(acceptor.size(), false);
  const auto pair_with = [&](const transport::RailCandidate& end, bool by_name) {
    for (size_t i = 0; i < acceptor.size(); ++i) {
      if (taken[i] || acceptor[i].network != end.network) continue;
      if (by_name && acceptor[i].name != end.name) continue;
      taken[i] = true;
      distinct.push_back(
          {end.name, acceptor[i].name, SlowerRate(end.bytes_per_sec, acceptor[i].bytes_per_sec)});
      return true;
    }
    return false;
  };
  std::vector<bool> paired(initiator.size(), false);
  // Rail 0: both sides' first ends, the control connection's path (tcp) or
  // the device each side was configured with (verbs).
  if (!initiator.empty() && !acceptor.empty() && initiator[0].network == acceptor[0].network) {
    taken[0] = true;
    paired[0] = true;
    distinct.push_back({initiator[0].name, acceptor[0].name,
                        SlowerRate(initiator[0].bytes_per_sec, acceptor[0].bytes_per_sec)});
  }
  // Then the same network and name (a device with its namesake), then any
  // end of the network; the initiator's order decides which pair comes
  // first.
  for (const bool by_name : {true, false}) {
    for (size_t i = 0; i < initiator.size(); ++i) {
      if (!paired[i]) paired[i] = pair_with(initiator[i], by_name);
    }
  }
  if (distinct.empty()) return {};
  // In the order found: rail 0, then namesakes, then the rest, each in the
  // initiator's order, so that a device's own namesake comes before a pair
  // that reuses rail 0's devices crosswise (one host's two test devices).
  const auto most = std::max(max_rails, 1u);
  const uint32_t wanted =
      std::min(requested == 0 ? static_cast<uint32_t>(distinct.size()) : requested, most);
  std::vector<RailPair> rails;
  for (uint32_t i = 0; i < wanted; ++i) rails.push_back(distinct[i % distinct.size()]);
  return rails;
}

}  // namespace xfer::core
