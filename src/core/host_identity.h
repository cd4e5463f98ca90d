// Whether two engines run on one host and can share memory directly.
#ifndef XFER_CORE_HOST_IDENTITY_H_
#define XFER_CORE_HOST_IDENTITY_H_

#include <cstdint>
#include <string>

namespace xfer::core {

// The kernel boot id names the running kernel instance; the network
// namespace inode tells containers apart, since the shm transport's
// abstract Unix sockets are scoped to a network namespace.
struct HostIdentity {
  std::string boot_id;
  uint64_t net_namespace = 0;

  bool SameHostAs(const HostIdentity& other) const {
    return !boot_id.empty() && boot_id == other.boot_id && net_namespace == other.net_namespace;
  }
};

// Reads /proc; fields it cannot read stay empty/0, which makes SameHostAs
// false (the safe answer: fall back to a network transport).
HostIdentity LocalHostIdentity();

}  // namespace xfer::core

#endif  // XFER_CORE_HOST_IDENTITY_H_
