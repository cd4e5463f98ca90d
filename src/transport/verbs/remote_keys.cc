#include "transport/verbs/remote_keys.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace xfer::transport::verbs {

RemoteKeys::RemoteKeys(std::vector<RegionKey> regions) : regions_(std::move(regions)) {
  std::sort(regions_.begin(), regions_.end(),
            [](const RegionKey& a, const RegionKey& b) { return a.address < b.address; });
}

Result<uint32_t> RemoteKeys::Find(uint64_t address, uint64_t length, Access needed) const {
  if (length == 0) return InvalidArgument("verbs: zero-length remote range");
  auto it = std::upper_bound(regions_.begin(), regions_.end(), address,
                             [](uint64_t a, const RegionKey& r) { return a < r.address; });
  if (it == regions_.begin() ||
      !RangeInside(address, length, std::prev(it)->address, std::prev(it)->length)) {
    return OutOfRange(fmt::format(
        "verbs: remote range [{:#x}, +{}) is not inside one region the peer registered", address,
        length));
  }
  const RegionKey& region = *std::prev(it);
  if (!HasAccess(region.access, needed)) {
    return PermissionDenied(fmt::format("verbs: peer region {:#x} does not grant remote {}",
                                        region.address,
                                        needed == Access::kRemoteRead ? "read" : "write"));
  }
  return region.rkey;
}

Status MatchAnnouncedRegions(const std::vector<RegionKey>& keys,
                             const std::vector<RemoteRegion>& announced) {
  if (keys.size() != announced.size()) {
    return ProtocolError(fmt::format(
        "verbs setup: the peer keyed {} regions but announced {} in the handshake", keys.size(),
        announced.size()));
  }
  std::vector<RegionKey> sorted_keys = keys;
  std::vector<RemoteRegion> sorted_announced = announced;
  std::sort(sorted_keys.begin(), sorted_keys.end(),
            [](const RegionKey& a, const RegionKey& b) { return a.address < b.address; });
  std::sort(sorted_announced.begin(), sorted_announced.end(),
            [](const RemoteRegion& a, const RemoteRegion& b) { return a.address < b.address; });
  for (size_t i = 0; i < sorted_keys.size(); ++i) {
    const RegionKey& k = sorted_keys[i];
    const RemoteRegion& a = sorted_announced[i];
    if (k.id != a.id || k.address != a.address || k.length != a.length || k.access != a.access) {
      return ProtocolError(fmt::format(
          "verbs setup: the peer keyed region {} [{:#x}, +{}) but announced region {} "
          "[{:#x}, +{}) in the handshake",
          k.id, k.address, k.length, a.id, a.address, a.length));
    }
  }
  return Status::Ok();
}

}  // namespace xfer::transport::verbs
