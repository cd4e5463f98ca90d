// The peer's registered memory as its NIC knows it: the rkey of every
// region the peer announced, with the range check a WR must pass before it
// is posted.
#ifndef XFER_TRANSPORT_VERBS_REMOTE_KEYS_H_
#define XFER_TRANSPORT_VERBS_REMOTE_KEYS_H_

#include <cstdint>
#include <vector>

#include "transport/remote_memory.h"
#include "transport/verbs/setup_message.h"
#include "xfer/status.h"

namespace xfer::transport::verbs {

// Immutable after construction; safe to share between threads.
class RemoteKeys {
 public:
  RemoteKeys() = default;
  explicit RemoteKeys(std::vector<RegionKey> regions);

  // The rkey of the one region holding [address, address + length) with
  // `needed` access. Errors: kInvalidArgument (length 0), kOutOfRange (not
  // inside one region, overflow included), kPermissionDenied.
  Result<uint32_t> Find(uint64_t address, uint64_t length, Access needed) const;

  const std::vector<RegionKey>& regions() const { return regions_; }

 private:
  std::vector<RegionKey> regions_;  // sorted by address
};

// OK when `keys` describes exactly the regions of `announced` (same ids,
// addresses, lengths and access, in any order): the peer's verbs setup must
// cover the table its engine sent in the handshake, no more and no less.
// Errors: kProtocolError naming the first difference.
Status MatchAnnouncedRegions(const std::vector<RegionKey>& keys,
                             const std::vector<RemoteRegion>& announced);

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_REMOTE_KEYS_H_
