#include "core/closed_peers.h"

#include <fmt/format.h>

namespace xfer::core {

void ClosedPeers::Record(PeerId peer, std::string why) {
  std::lock_guard lock(mutex_);
  if (reasons_.size() == kKept) reasons_.pop_front();
  reasons_.emplace_back(peer, std::move(why));
}

Status ClosedPeers::NoPeer(PeerId peer) const {
  std::lock_guard lock(mutex_);
  for (auto it = reasons_.rbegin(); it != reasons_.rend(); ++it) {
    if (it->first != peer) continue;
    return NotFound(fmt::format(
        "no peer {}: the engine closed that connection: {}; connect again (Engine::Connect) to "
        "use that peer",
        peer, it->second));
  }
  return NotFound(fmt::format("no peer {}", peer));
}

}  // namespace xfer::core
