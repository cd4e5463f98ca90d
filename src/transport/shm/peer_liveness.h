// Whether an shm peer's process has exited, from a pidfd opened when the
// connection is made. A process that has exited has no mappings left, so
// none of its copies can still land in our memory: a revocation need not
// wait for copies it left counted when it was killed mid-copy.
#ifndef XFER_TRANSPORT_SHM_PEER_LIVENESS_H_
#define XFER_TRANSPORT_SHM_PEER_LIVENESS_H_

#include "common/socket.h"

namespace xfer::transport::shm {

class PeerLiveness {
 public:
  PeerLiveness() = default;  // knows nothing: Exited() is always false
  // Watches process `pid` (<= 0, or a pidfd that cannot be opened: knows
  // nothing, and the caller waits as if the peer were alive).
  static PeerLiveness Watch(int pid);

  // True once the process has exited (zombies included). Never blocks.
  bool Exited() const;

 private:
  explicit PeerLiveness(UniqueFd pidfd) : pidfd_(std::move(pidfd)) {}
  UniqueFd pidfd_;
};

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_PEER_LIVENESS_H_
