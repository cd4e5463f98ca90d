// The peer's region table, as received in the handshake, with the range
// checks every transport applies before touching remote memory.
#ifndef XFER_TRANSPORT_REMOTE_MEMORY_H_
#define XFER_TRANSPORT_REMOTE_MEMORY_H_

#include <cstdint>
#include <vector>

#include "xfer/memory.h"
#include "xfer/status.h"

namespace xfer::transport {

// Immutable after construction; safe to share between threads.
class RemoteMemory {
 public:
  RemoteMemory() = default;
  // Regions must not overlap and must not wrap the address space; the
  // handshake decoder rejects such tables before they get here.
  explicit RemoteMemory(std::vector<RemoteRegion> regions);

  // The region holding [address, address + length), or an error:
  // kInvalidArgument (length 0), kOutOfRange (not inside one region,
  // including overflow), kPermissionDenied (region lacks `needed`).
  Result<const RemoteRegion*> Check(uint64_t address, uint64_t length,
                                    Access needed) const;

  const std::vector<RemoteRegion>& regions() const { return regions_; }

 private:
  std::vector<RemoteRegion> regions_;  // sorted by address
};

// Shared by RemoteMemory and the engine's registry: true when
// [address, address + length) fits in [base, base + size) without overflow.
constexpr bool RangeInside(uint64_t address, uint64_t length, uint64_t base, uint64_t size) {
  return address >= base && length <= size && address - base <= size - length;
}

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_REMOTE_MEMORY_H_
