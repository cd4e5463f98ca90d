// The transports' read-only view of the local engine's registered memory.
#ifndef XFER_TRANSPORT_LOCAL_MEMORY_H_
#define XFER_TRANSPORT_LOCAL_MEMORY_H_

#include <cstdint>
#include <vector>

#include "xfer/memory.h"
#include "xfer/status.h"

namespace xfer::transport {

// A local region as a transport sees it.
struct LocalRegionView {
  uint64_t id = 0;
  void* address = nullptr;
  size_t length = 0;
  Access access = Access::kNone;
  // A memfd backing exactly [address, address+length) when the engine
  // allocated the region, so that a same-host peer can map it; else -1.
  // Owned by the engine: transports dup() it if they need it to outlive a
  // call. Always -1 for kCuda memory.
  int fd = -1;
  MemoryKind kind = MemoryKind::kHost;
  int device = -1;  // the CUDA device ordinal of kCuda memory
};

// Implemented by the engine's memory registry. Thread-safe.
class LocalMemory {
 public:
  virtual ~LocalMemory() = default;

  // OK when [address, address + length) lies inside one registered region
  // that grants `needed` (kNone: any registered region). Overflowing ranges
  // count as out of range. Errors: kOutOfRange, kPermissionDenied,
  // kInvalidArgument (length 0).
  Status Check(uint64_t address, uint64_t length, Access needed) const {
    return Locate(address, length, needed).status();
  }
  // Check's answer and, when it is OK, the kind of memory the range is in.
  virtual Result<MemoryKind> Locate(uint64_t address, uint64_t length, Access needed) const = 0;

  // Every region registered now.
  virtual std::vector<LocalRegionView> Snapshot() const = 0;
};

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_LOCAL_MEMORY_H_
