// The peer's registered memory as its NIC knows it: the rkey of every
// memory registration (MR) of every region the peer announced, with the
// range check a WR must pass before it is posted. A region the peer
// registered in pieces has one MR per piece; a range crossing from one
// piece into the next is one range of the region, reached with one key per
// piece.
#ifndef XFER_TRANSPORT_VERBS_REMOTE_KEYS_H_
#define XFER_TRANSPORT_VERBS_REMOTE_KEYS_H_

#include <cstdint>
#include <vector>

#include "transport/remote_memory.h"
#include "transport/verbs/key_run.h"
#include "transport/verbs/setup_message.h"
#include "xfer/status.h"

namespace xfer::transport::verbs {

// Immutable after construction; safe to share between threads.
class RemoteKeys {
 public:
  RemoteKeys() = default;
  // REQUIRES: MatchAnnouncedRegions accepted `keys` (the keys of each region
  // tile it).
  explicit RemoteKeys(std::vector<RegionKey> keys);

  // For [address, address + length), which must lie inside one region
  // granting `needed`: the rkey of the MR holding `address` and the bytes
  // it covers from there (all `length` unless the range runs on into the
  // region's next piece; ask again from address + bytes for the rest).
  // Errors: kInvalidArgument (length 0), kOutOfRange (not inside one
  // region, overflow included), kPermissionDenied.
  Result<KeyRun> Find(uint64_t address, uint64_t length, Access needed) const;

 private:
  struct Piece {
    RegionKey key;
    uint64_t region_address = 0;  // the whole region the piece belongs to
    uint64_t region_length = 0;
  };
  std::vector<Piece> pieces_;  // sorted by address
};

// OK when `keys` describe exactly the regions of `announced`: for each
// region, keys with its id and access whose spans tile it (each starts
// where the previous ends, the first at the region's start, the last
// ending at its end), and no other key. Errors: kProtocolError naming the
// first difference.
Status MatchAnnouncedRegions(const std::vector<RegionKey>& keys,
                             const std::vector<RemoteRegion>& announced);

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_REMOTE_KEYS_H_
