// Memory that takes part in transfers: what a process registers locally and
// what it learns of its peer's registrations.
//
// What registering costs, and when (keep it off the critical path):
//   - Engine::AllocateMemory of host or hugepage memory faults every page in
//     (MAP_POPULATE): about the time to write the region once.
//   - Once device memory takes part (this engine allocated or registered a
//     device region, or connected to a peer that announced one), every
//     host and hugepage region is also page-locked with the CUDA driver
//     (cuMemHostRegister), so that copies between it and device memory run
//     at the link's speed (a pageable source runs H2D at ~15% of it): at
//     registration for a region registered then; for the regions already
//     registered, at the call or connection that brought device memory in.
//     Pinning costs roughly what registering the pages with a NIC costs
//     (both look up and lock every page); it is undone at deregistration.
//   - The verbs transport registers each region with the NIC (ibv_reg_mr)
//     when a connection is set up, or at the first transfer that uses a
//     region registered after the connection: the same order of cost.
//   - Device memory is registered with no copy and no pinning.
#ifndef XFER_MEMORY_H_
#define XFER_MEMORY_H_

#include <cstddef>
#include <cstdint>

#include "xfer/export.h"

namespace xfer {

// Which remote operations a registered region admits. Local use of a region
// (as the source of a WRITE or the destination of a READ) needs no flag.
enum class Access : uint32_t {
  kNone = 0,
  kRemoteRead = 1u << 0,   // the peer may READ from this region
  kRemoteWrite = 1u << 1,  // the peer may WRITE into this region
  kRemoteReadWrite = kRemoteRead | kRemoteWrite,
};

constexpr Access operator|(Access a, Access b) {
  return static_cast<Access>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr bool HasAccess(Access granted, Access wanted) {
  return (static_cast<uint32_t>(granted) & static_cast<uint32_t>(wanted)) ==
         static_cast<uint32_t>(wanted);
}

// What backs a region that the engine allocates.
enum class MemoryKind : uint32_t {
  kHost = 0,      // ordinary pages
  kHugepage = 1,  // 2 MiB hugepages (needs free pages in /proc/sys/vm/nr_hugepages)
  // CUDA device memory (VRAM) on one GPU. Usable where an NVIDIA driver and
  // a GPU are; see Engine::AllocateMemory and Engine::RegisterMemory.
  kCuda = 2,
};

// "host", "hugepage", "cuda".
XFER_API const char* MemoryKindName(MemoryKind kind);

struct MemoryOptions {
  Access access = Access::kRemoteReadWrite;  // what the peer may do
  MemoryKind kind = MemoryKind::kHost;       // only for Engine::AllocateMemory
  int device = 0;  // CUDA device ordinal, for kind == kCuda only
  // Engine::AllocateMemory of host or hugepage memory: the NUMA node its
  // pages are placed on (bound there before they are touched, mbind(2));
  // -1: wherever the kernel's policy puts them. A node this host lacks is
  // refused with kInvalidArgument naming the node.
  int numa_node = -1;
};

// A region registered with a local engine. A plain value: copying it copies
// the description, not the memory. Valid until Engine::DeregisterMemory or
// the engine's destruction, whichever comes first.
struct MemoryRegion {
  uint64_t id = 0;           // engine-unique, never 0 for a live region
  void* address = nullptr;   // first byte
  size_t length = 0;         // bytes
  Access access = Access::kNone;
  MemoryKind kind = MemoryKind::kHost;
  int device = -1;  // the CUDA device ordinal of kCuda memory; -1 otherwise
};

// A region the peer registered, as it described itself at connect time.
// `address` is in the peer's address space: use it (plus an offset) as the
// remote address of a TransferEntry, never dereference it locally.
struct RemoteRegion {
  uint64_t id = 0;
  uint64_t address = 0;
  uint64_t length = 0;
  Access access = Access::kNone;
  MemoryKind kind = MemoryKind::kHost;  // where the peer's bytes live
  int device = -1;  // the peer's CUDA device ordinal for kCuda; -1 otherwise
};

}  // namespace xfer

#endif  // XFER_MEMORY_H_
