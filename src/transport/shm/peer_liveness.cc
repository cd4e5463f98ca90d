#include "transport/shm/peer_liveness.h"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace xfer::transport::shm {

PeerLiveness PeerLiveness::Watch(int pid) {
  if (pid <= 0) return PeerLiveness();
  // pidfd_open(2), Linux 5.3; glibc 2.36 has no wrapper for every target.
  const long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) return PeerLiveness();
  return PeerLiveness(UniqueFd(static_cast<int>(fd)));
}

bool PeerLiveness::Exited() const {
  if (!pidfd_.valid()) return false;
  pollfd pfd{pidfd_.get(), POLLIN, 0};
  return ::poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN) != 0;
}

}  // namespace xfer::transport::shm
