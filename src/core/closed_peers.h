// Why the engine closed a connection on its own (a request's deadline that
// the transport could only stop by closing it), so that a later call naming
// that peer says what happened and what to do, instead of only "no peer".
// A PeerId is never reused (peer_table.h), so an entry never names a live
// connection. Bounded: the oldest reasons are forgotten first.
#ifndef XFER_CORE_CLOSED_PEERS_H_
#define XFER_CORE_CLOSED_PEERS_H_

#include <deque>
#include <mutex>
#include <string>
#include <utility>

#include "xfer/engine.h"
#include "xfer/status.h"

namespace xfer::core {

class ClosedPeers {
 public:
  // At most this many reasons are kept.
  static constexpr size_t kKept = 1024;

  // Records that the engine closed `peer`, and why ("the deadline of a
  // request passed while the transport held it"). Thread-safe.
  void Record(PeerId peer, std::string why);

  // kNotFound for a call naming `peer`, which is not connected: "no peer
  // 7: the engine closed it: <why>; connect again (Engine::Connect) to use
  // it" where a reason was recorded, else "no peer 7". Thread-safe; takes
  // a lock: for the miss path only.
  Status NoPeer(PeerId peer) const;

 private:
  mutable std::mutex mutex_;
  std::deque<std::pair<PeerId, std::string>> reasons_;  // oldest first
};

}  // namespace xfer::core

#endif  // XFER_CORE_CLOSED_PEERS_H_
