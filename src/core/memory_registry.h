// The engine's table of registered memory: allocation (memfd-backed, so a
// same-host peer can map it), registration of caller memory, and the range
// checks the transports rely on.
#ifndef XFER_CORE_MEMORY_REGISTRY_H_
#define XFER_CORE_MEMORY_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "core/region_index.h"
#include "cuda/device_runtime.h"
#include "transport/local_memory.h"
#include "xfer/memory.h"
#include "xfer/status.h"

namespace xfer::core {

// Thread-safe. Locate, the hot path's check, takes no lock: it reads the
// RegionIndex that every change republishes. Regions the registry allocated are unmapped (or, on a GPU,
// freed) when deregistered or when the registry is destroyed. `devices`
// outlives the registry.
//
// Pinning: once device memory takes part (a device region is registered
// here, or PinHostRegions is called: the engine does when a connection
// brings a peer's device regions), host and hugepage regions are
// page-locked with the CUDA driver (DeviceRuntime::PinHost), so that device
// copies to and from them run at the link's speed: those registered before
// at that moment, later ones as they are registered. Unpinned at
// deregistration. A region the driver refuses to pin stays registered and
// pageable: its device copies go through the driver's own bounce buffer.
class MemoryRegistry final : public transport::LocalMemory {
 public:
  // Region ids count up from `first_id` (> 0), so that registries whose
  // regions one transport sees side by side never share an id.
  explicit MemoryRegistry(cuda::DeviceRuntime& devices, uint64_t first_id = 1)
      : devices_(devices), next_id_(first_id) {}
  ~MemoryRegistry() override;
  MemoryRegistry(const MemoryRegistry&) = delete;
  MemoryRegistry& operator=(const MemoryRegistry&) = delete;

  // Errors: kInvalidArgument (length 0, no such CUDA device),
  // kResourceExhausted (memfd, mmap, hugepage reservation or device memory
  // failed; the message says which), and for kCuda DeviceRuntime's reasons
  // (kFailedPrecondition, kNotSupported).
  Result<MemoryRegion> Allocate(size_t length, const MemoryOptions& options);
  // The region's kind is what the CUDA driver says the memory is (host
  // memory where there is no driver). Errors: kInvalidArgument (null, zero
  // length, wraps, overlaps, leaves its CUDA allocation, managed memory).
  Result<MemoryRegion> Register(void* address, size_t length, Access access);
  // Removes the region from the table, so that every later Check and
  // Snapshot misses it, then calls `withdraw` with it (the engine revokes
  // it from its connections there), then frees memory the registry
  // allocated, whatever `withdraw` returned. Returns withdraw's status.
  // `withdraw` runs without the registry's lock held. Errors: kNotFound (no
  // live region with that id and address), or withdraw's.
  Status Deregister(const MemoryRegion& region,
                    const std::function<Status(const transport::LocalRegionView&)>& withdraw);

  // Pins every host and hugepage region not pinned yet, and every one
  // registered from now on (see above); slow, about as slow as registering
  // the pages with a NIC. Errors: the first region's refusal
  // (DeviceRuntime::PinHost's), after trying them all.
  Status PinHostRegions();

  Result<MemoryKind> Locate(uint64_t address, uint64_t length, Access needed) const override;

  // The id of the region [address, +length) lies inside, 0 when none.
  // Lock-free, as Locate.
  uint64_t RegionIdOf(uint64_t address, uint64_t length) const;
  // How many regions were deregistered so far: a prepared list compares it
  // with the count it last saw to know whether to look for its regions
  // again. One atomic load.
  uint64_t removals() const { return removals_.load(std::memory_order_acquire); }
  std::vector<transport::LocalRegionView> Snapshot() const override;

 private:
  struct Entry {
    transport::LocalRegionView view;
    bool owned = false;  // allocated here: unmap and close (or free) on removal
    bool pinned = false;  // page-locked with the CUDA driver: unpin on removal
  };
  void Release(const Entry& entry) const;
  Result<MemoryRegion> AllocateDevice(size_t length, const MemoryOptions& options);
  bool OverlapsLocked(uint64_t address, uint64_t length) const;
  // Adds `entry` unless it overlaps a registered region (kInvalidArgument;
  // the caller still owns what it allocated).
  Result<MemoryRegion> Insert(Entry entry);
  void PublishLocked();
  // Pins `entry` when it is host memory not pinned yet. REQUIRES: mu_ held.
  Status PinLocked(Entry& entry);

  cuda::DeviceRuntime& devices_;
  mutable std::mutex mu_;
  std::map<uint64_t, Entry> by_address_;  // GUARDED_BY(mu_); key: start address
  uint64_t next_id_;                      // GUARDED_BY(mu_)
  bool pin_host_ = false;                 // GUARDED_BY(mu_); see Pinning
  std::vector<IndexedRegion> published_;  // GUARDED_BY(mu_); scratch for PublishLocked
  RegionIndex index_;                     // written under mu_, read by Locate
  // Raised after each removal is published: a reader that sees the new
  // count finds the region gone from the index.
  std::atomic<uint64_t> removals_{0};
};

// The table a peer receives in the handshake for these regions.
std::vector<RemoteRegion> DescribeRegions(const std::vector<transport::LocalRegionView>& views);

}  // namespace xfer::core

#endif  // XFER_CORE_MEMORY_REGISTRY_H_
