#include "topology/tier.h"

namespace xfer::topology {

std::string_view TierName(Tier tier) {
  switch (tier) {
    case Tier::kAssigned: return "assigned";
    case Tier::kSameSwitch: return "PIX/PXB";
    case Tier::kSameRootComplex: return "PHB";
    case Tier::kSameNode: return "NODE";
    case Tier::kUnknown: return "unknown";
    case Tier::kAcrossNodes: return "SYS";
  }
  return "unknown";
}

}  // namespace xfer::topology
