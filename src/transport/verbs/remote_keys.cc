#include "transport/verbs/remote_keys.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace xfer::transport::verbs {
namespace {

bool ByAddress(const RegionKey& a, const RegionKey& b) { return a.address < b.address; }

}  // namespace

RemoteKeys::RemoteKeys(std::vector<RegionKey> keys) {
  std::sort(keys.begin(), keys.end(), ByAddress);
  pieces_.reserve(keys.size());
  // A region's pieces are adjacent once sorted: regions never overlap.
  for (size_t first = 0; first < keys.size();) {
    size_t end = first + 1;
    while (end < keys.size() && keys[end].id == keys[first].id) ++end;
    const uint64_t region_length = keys[end - 1].address + keys[end - 1].length - keys[first].address;
    for (size_t i = first; i < end; ++i) {
      pieces_.push_back({keys[i], keys[first].address, region_length});
    }
    first = end;
  }
}

Result<KeyRun> RemoteKeys::Find(uint64_t address, uint64_t length, Access needed) const {
  if (length == 0) return InvalidArgument("verbs: zero-length remote range");
  auto it = std::upper_bound(pieces_.begin(), pieces_.end(), address,
                             [](uint64_t a, const Piece& p) { return a < p.key.address; });
  if (it == pieces_.begin() ||
      !RangeInside(address, length, std::prev(it)->region_address, std::prev(it)->region_length)) {
    return OutOfRange(fmt::format(
        "verbs: remote range [{:#x}, +{}) is not inside one region the peer registered", address,
        length));
  }
  const Piece& piece = *std::prev(it);
  if (!HasAccess(piece.key.access, needed)) {
    return PermissionDenied(fmt::format("verbs: peer region {:#x} does not grant remote {}",
                                        piece.region_address,
                                        needed == Access::kRemoteRead ? "read" : "write"));
  }
  // Inside the region, so `address` is inside this piece (pieces tile it).
  const uint64_t piece_end = piece.key.address + piece.key.length;
  return KeyRun{piece.key.rkey, std::min(length, piece_end - address)};
}

Status MatchAnnouncedRegions(const std::vector<RegionKey>& keys,
                             const std::vector<RemoteRegion>& announced) {
  std::vector<RegionKey> sorted_keys = keys;
  std::vector<RemoteRegion> sorted_announced = announced;
  std::sort(sorted_keys.begin(), sorted_keys.end(), ByAddress);
  std::sort(sorted_announced.begin(), sorted_announced.end(),
            [](const RemoteRegion& a, const RemoteRegion& b) { return a.address < b.address; });
  size_t next = 0;  // the first key not yet matched
  for (const RemoteRegion& region : sorted_announced) {
    uint64_t covered = region.address;  // keys so far tile [region.address, covered)
    const uint64_t end = region.address + region.length;
    while (covered < end) {
      if (next == sorted_keys.size()) {
        return ProtocolError(fmt::format(
            "verbs setup: the peer announced region {} [{:#x}, +{}) in the handshake but keyed "
            "only [{:#x}, {:#x}) of it",
            region.id, region.address, region.length, region.address, covered));
      }
      const RegionKey& k = sorted_keys[next];
      if (k.id != region.id || k.address != covered || k.length > end - covered ||
          k.access != region.access) {
        return ProtocolError(fmt::format(
            "verbs setup: the peer keyed [{:#x}, +{}) of region {} where its handshake's region "
            "{} [{:#x}, +{}) needs a key from {:#x}",
            k.address, k.length, k.id, region.id, region.address, region.length, covered));
      }
      covered += k.length;
      ++next;
    }
  }
  if (next != sorted_keys.size()) {
    const RegionKey& k = sorted_keys[next];
    return ProtocolError(fmt::format(
        "verbs setup: the peer keyed [{:#x}, +{}) of region {}, which its handshake did not "
        "announce",
        k.address, k.length, k.id));
  }
  return Status::Ok();
}

}  // namespace xfer::transport::verbs
