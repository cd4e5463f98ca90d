// The engine's table of registered memory: allocation (memfd-backed, so a
// same-host peer can map it), registration of caller memory, and the range
// checks the transports rely on.
#ifndef XFER_CORE_MEMORY_REGISTRY_H_
#define XFER_CORE_MEMORY_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <shared_mutex>
#include <vector>

#include "transport/local_memory.h"
#include "xfer/memory.h"
#include "xfer/status.h"

namespace xfer::core {

// Thread-safe. Regions the registry allocated are unmapped when deregistered
// or when the registry is destroyed.
class MemoryRegistry final : public transport::LocalMemory {
 public:
  MemoryRegistry() = default;
  ~MemoryRegistry() override;
  MemoryRegistry(const MemoryRegistry&) = delete;
  MemoryRegistry& operator=(const MemoryRegistry&) = delete;

  // Errors: kInvalidArgument (length 0), kResourceExhausted (memfd, mmap or
  // hugepage reservation failed; the message says which).
  Result<MemoryRegion> Allocate(size_t length, const MemoryOptions& options);
  // Errors: kInvalidArgument (null, zero length, wraps, overlaps).
  Result<MemoryRegion> Register(void* address, size_t length, Access access);
  // Removes the region from the table, so that every later Check and
  // Snapshot misses it, then calls `withdraw` with it (the engine revokes
  // it from its connections there), then frees memory the registry
  // allocated, whatever `withdraw` returned. Returns withdraw's status.
  // `withdraw` runs without the registry's lock held. Errors: kNotFound (no
  // live region with that id and address), or withdraw's.
  Status Deregister(const MemoryRegion& region,
                    const std::function<Status(const transport::LocalRegionView&)>& withdraw);

  Status Check(uint64_t address, uint64_t length, Access needed) const override;
  std::vector<transport::LocalRegionView> Snapshot() const override;

 private:
  struct Entry {
    transport::LocalRegionView view;
    MemoryKind kind = MemoryKind::kHost;
    bool owned = false;  // allocated here: unmap and close on removal
  };
  static void Release(const Entry& entry);
  bool OverlapsLocked(uint64_t address, uint64_t length) const;
  MemoryRegion Insert(Entry entry);

  mutable std::shared_mutex mu_;
  std::map<uint64_t, Entry> by_address_;  // GUARDED_BY(mu_); key: start address
  uint64_t next_id_ = 1;                  // GUARDED_BY(mu_)
};

// The table a peer receives in the handshake for these regions.
std::vector<RemoteRegion> DescribeRegions(const std::vector<transport::LocalRegionView>& views);

}  // namespace xfer::core

#endif  // XFER_CORE_MEMORY_REGISTRY_H_
