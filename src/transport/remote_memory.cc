#include "transport/remote_memory.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

namespace xfer::transport {

RemoteMemory::RemoteMemory(std::vector<RemoteRegion> regions) : regions_(std::move(regions)) {
  std::sort(regions_.begin(), regions_.end(),
            [](const RemoteRegion& a, const RemoteRegion& b) { return a.address < b.address; });
}

Result<const RemoteRegion*> RemoteMemory::Check(uint64_t address, uint64_t length,
                                                Access needed) const {
  if (length == 0) return InvalidArgument("zero-length remote range");
  // The last region starting at or below `address` is the only candidate.
  auto it = std::upper_bound(regions_.begin(), regions_.end(), address,
                             [](uint64_t a, const RemoteRegion& r) { return a < r.address; });
  if (it == regions_.begin()) {
    return OutOfRange(fmt::format("remote range [{:#x}, +{}) is not in any region the peer registered",
                                  address, length));
  }
  const RemoteRegion& region = *std::prev(it);
  if (!RangeInside(address, length, region.address, region.length)) {
    return OutOfRange(fmt::format(
        "remote range [{:#x}, +{}) is not inside one peer region (nearest: [{:#x}, +{}))",
        address, length, region.address, region.length));
  }
  if (!HasAccess(region.access, needed)) {
    return PermissionDenied(fmt::format("peer region {:#x} does not grant remote {}", region.address,
                                        needed == Access::kRemoteRead ? "read" : "write"));
  }
  return &region;
}

}  // namespace xfer::transport
