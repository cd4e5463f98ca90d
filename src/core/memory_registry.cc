#include "core/memory_registry.h"

#include <linux/memfd.h>
#include <linux/mempolicy.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <mutex>

#include <fmt/format.h>

#include "common/address.h"
#include "common/host_memory.h"
#include "common/node_mask.h"
#include "common/socket.h"
#include "core/page_population.h"
#include "transport/remote_memory.h"

namespace xfer::core {
namespace {

constexpr size_t kHugePageSize = size_t{2} << 20;

// Binds the pages of a fresh mapping to `node` before any is touched
// (mbind MPOL_BIND). Errors: kInvalidArgument for a node this host lacks.
Status BindToNode(void* address, size_t length, int node) {
  if (static_cast<size_t>(node) >= NodeMask::kMaxNodes) {
    return InvalidArgument(fmt::format("MemoryOptions::numa_node {}: no such NUMA node", node));
  }
  const int nodes[] = {node};
  const NodeMask mask(nodes);
  if (syscall(SYS_mbind, address, length, MPOL_BIND, mask.data(), NodeMask::MaxNode(), 0) != 0) {
    if (errno == EINVAL) {
      return InvalidArgument(
          fmt::format("MemoryOptions::numa_node {}: no such NUMA node on this host", node));
    }
    return IoError(ErrnoMessage("mbind", errno));
  }
  return Status::Ok();
}

size_t RoundUp(size_t n, size_t unit) { return (n + unit - 1) / unit * unit; }


// Backs the region with a memfd rather than anonymous memory so that the shm
// transport can hand the descriptor to a same-host peer, which maps it and
// copies into it directly: one-sided with no help from this process.
Result<UniqueFd> CreateBackingFd(size_t mapped_length, MemoryKind kind) {
  // Sealed below against resizing: a peer that maps the memfd must not be
  // able to shrink it under our mapping (SIGBUS) nor we under its.
  unsigned flags = MFD_CLOEXEC | MFD_ALLOW_SEALING;
  if (kind == MemoryKind::kHugepage) flags |= MFD_HUGETLB | (21u << MFD_HUGE_SHIFT);
  UniqueFd fd(memfd_create("xfer-region", flags));
  if (!fd.valid()) {
    return ResourceExhausted(ErrnoMessage("memfd_create", errno));
  }
  if (ftruncate(fd.get(), static_cast<off_t>(mapped_length)) != 0) {
    return ResourceExhausted(ErrnoMessage("ftruncate", errno));
  }
  if (fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    return ResourceExhausted(ErrnoMessage("fcntl(F_ADD_SEALS)", errno));
  }
  return fd;
}

}  // namespace

MemoryRegistry::~MemoryRegistry() {
  for (const auto& [address, entry] : by_address_) Release(entry);
}

void MemoryRegistry::Release(const Entry& entry) const {
  if (entry.pinned) (void)devices_.UnpinHost(entry.view.address);
  if (!entry.owned) return;
  if (entry.view.kind == MemoryKind::kCuda) {
    (void)devices_.Free(AddressOfPointer(entry.view.address));
    return;
  }
  size_t unit = entry.view.kind == MemoryKind::kHugepage ? kHugePageSize : 4096;
  munmap(entry.view.address, RoundUp(entry.view.length, unit));
  close(entry.view.fd);
}

Result<MemoryRegion> MemoryRegistry::Allocate(size_t length, const MemoryOptions& options) {
  if (length == 0) return InvalidArgument("cannot allocate a zero-length region");
  if (options.numa_node < -1) {
    return InvalidArgument(fmt::format("MemoryOptions::numa_node is {}; give a node (0, 1, ...) "
                                       "or -1 (the kernel's choice)",
                                       options.numa_node));
  }
  if (options.kind == MemoryKind::kCuda) {
    if (options.numa_node != -1) {
      return InvalidArgument("MemoryOptions::numa_node places host pages; CUDA memory lives on "
                             "its GPU (MemoryOptions::device)");
    }
    return AllocateDevice(length, options);
  }
  const bool huge = options.kind == MemoryKind::kHugepage;
  if (length > SIZE_MAX - kHugePageSize) {
    return ResourceExhausted(fmt::format("cannot allocate {} bytes: larger than any host", length));
  }
  const size_t mapped = RoundUp(length, huge ? kHugePageSize : 4096);
  // Hugepages are reserved when mapped, and mmap refuses what the pool
  // lacks; ordinary pages are not, and a shared mapping larger than the
  // host's memory is faulted in until the OOM killer steps in.
  if (!huge) {
    XFER_RETURN_IF_ERROR(CheckHostCanBack(mapped, "host memory", ReadHostMemory()));
  }
  auto fd = CreateBackingFd(mapped, options.kind);
  if (!fd.ok()) return fd.status();
  // The pages are faulted in now, so that the first measured transfer does
  // not pay for page faults (perftest's buffers are touched at setup): by
  // mmap itself (MAP_POPULATE), or, for a large region, by several threads
  // after it, which is most of what allocating a large region costs.
  // A node's pages are bound before the first touch: populated after.
  const bool bound = options.numa_node >= 0;
  const unsigned threads = PopulationThreads(mapped);  // PopulateInParallel takes 0 as 1
  const int populate = threads > 1 || bound ? 0 : MAP_POPULATE;
  void* address = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED | populate,
                       fd->get(), 0);
  if (address == MAP_FAILED) {
    if (huge) {
      return ResourceExhausted(fmt::format(
          "cannot map {} bytes of 2 MiB hugepages ({}); reserve pages with "
          "'echo N > /proc/sys/vm/nr_hugepages'",
          mapped, ErrnoMessage("mmap", errno)));
    }
    return ResourceExhausted(ErrnoMessage("mmap", errno));
  }
  if (bound) {
    if (Status placed = BindToNode(address, mapped, options.numa_node); !placed.ok()) {
      munmap(address, mapped);
      return placed;
    }
  }
  if (threads > 1 || bound) {
    Status populated = PopulateInParallel(address, mapped, huge ? kHugePageSize : 4096, threads);
    if (!populated.ok()) {
      munmap(address, mapped);
      return populated;
    }
  }
  Entry entry;
  entry.view.address = address;
  entry.view.length = length;
  entry.view.access = options.access;
  entry.view.fd = fd->release();
  entry.view.kind = options.kind;
  entry.owned = true;
  auto region = Insert(entry);
  if (!region.ok()) Release(entry);
  return region;
}

Result<MemoryRegion> MemoryRegistry::AllocateDevice(size_t length, const MemoryOptions& options) {
  auto address = devices_.Allocate(options.device, length);
  if (!address.ok()) {
    return address.status().WithContext(
        fmt::format("CUDA device memory on device {}", options.device));
  }
  Entry entry;
  entry.view.address = reinterpret_cast<void*>(*address);
  entry.view.length = length;
  entry.view.access = options.access;
  entry.view.kind = MemoryKind::kCuda;
  entry.view.device = options.device;
  entry.owned = true;
  auto region = Insert(entry);
  if (!region.ok()) Release(entry);
  return region;
}

Result<MemoryRegion> MemoryRegistry::Register(void* address, size_t length, Access access) {
  if (address == nullptr) return InvalidArgument("cannot register a null address");
  if (length == 0) return InvalidArgument("cannot register a zero-length region");
  if (AddressOfPointer(address) > UINT64_MAX - length) {
    return InvalidArgument("region wraps the address space");
  }
  auto what = devices_.Classify(address, length);
  if (!what.ok()) return what.status().WithContext(fmt::format("registering [{}, +{})", address, length));
  Entry entry;
  entry.view.address = address;
  entry.view.length = length;
  entry.view.access = access;
  if (what->device) {
    entry.view.kind = MemoryKind::kCuda;
    entry.view.device = what->ordinal;
  }
  return Insert(entry);
}

Result<MemoryRegion> MemoryRegistry::Insert(Entry entry) {
  std::lock_guard lock(mu_);
  // Checked here, under the lock that inserts, so that two racing
  // registrations of overlapping ranges cannot both pass.
  if (OverlapsLocked(AddressOfPointer(entry.view.address), entry.view.length)) {
    return InvalidArgument(fmt::format("[{}, +{}) overlaps a registered region",
                                       entry.view.address, entry.view.length));
  }
  entry.view.id = next_id_++;
  by_address_.emplace(AddressOfPointer(entry.view.address), entry);
  if (entry.view.kind == MemoryKind::kCuda) pin_host_ = true;
  if (pin_host_) {
    // A refusal leaves a region pageable, see the header.
    for (auto& [address, other] : by_address_) (void)PinLocked(other);
  }
  PublishLocked();
  return MemoryRegion{entry.view.id,     entry.view.address, entry.view.length,
                      entry.view.access, entry.view.kind,    entry.view.device};
}

Status MemoryRegistry::PinLocked(Entry& entry) {
  if (entry.pinned || entry.view.kind == MemoryKind::kCuda) return Status::Ok();
  Status pinned = devices_.PinHost(entry.view.address, entry.view.length);
  entry.pinned = pinned.ok();
  return pinned.ok() ? pinned
                     : pinned.WithContext(fmt::format("page-locking region {} for device copies",
                                                      entry.view.id));
}

Status MemoryRegistry::PinHostRegions() {
  std::lock_guard lock(mu_);
  pin_host_ = true;
  Status first;
  for (auto& [address, entry] : by_address_) {
    Status pinned = PinLocked(entry);
    if (first.ok()) first = pinned;
  }
  return first;
}

void MemoryRegistry::PublishLocked() {
  published_.clear();
  for (const auto& [address, entry] : by_address_) {
    const auto& view = entry.view;
    published_.push_back({view.id, address, view.length, view.access, view.kind, view.device});
  }
  index_.Publish(published_);
}

bool MemoryRegistry::OverlapsLocked(uint64_t address, uint64_t length) const {
  auto next = by_address_.lower_bound(address);
  if (next != by_address_.end() && next->first < address + length) return true;
  if (next == by_address_.begin()) return false;
  const auto& prev = std::prev(next)->second.view;
  return AddressOfPointer(prev.address) + prev.length > address;
}

Status MemoryRegistry::Deregister(
    const MemoryRegion& region,
    const std::function<Status(const transport::LocalRegionView&)>& withdraw) {
  Entry removed;
  {
    std::lock_guard lock(mu_);
    auto it = by_address_.find(AddressOfPointer(region.address));
    if (it == by_address_.end() || it->second.view.id != region.id) {
      return NotFound(fmt::format("no registered region {} at {}", region.id, region.address));
    }
    removed = it->second;
    by_address_.erase(it);
    PublishLocked();
    removals_.fetch_add(1, std::memory_order_acq_rel);
  }
  Status withdrawn = withdraw(removed.view);
  Release(removed);
  return withdrawn;
}

uint64_t MemoryRegistry::RegionIdOf(uint64_t address, uint64_t length) const {
  const auto region = index_.Find(address);
  if (!region || !transport::RangeInside(address, length, region->address, region->length)) {
    return 0;
  }
  return region->id;
}

Result<MemoryKind> MemoryRegistry::Locate(uint64_t address, uint64_t length,
                                          Access needed) const {
  if (length == 0) return InvalidArgument("zero-length range");
  const auto region = index_.Find(address);
  if (!region) {
    return OutOfRange(fmt::format("[{:#x}, +{}) is not in registered memory", address, length));
  }
  if (!transport::RangeInside(address, length, region->address, region->length)) {
    return OutOfRange(fmt::format("[{:#x}, +{}) is not inside one registered region", address,
                                  length));
  }
  if (!HasAccess(region->access, needed)) {
    return PermissionDenied(fmt::format("region {} does not grant remote {}", region->id,
                                        needed == Access::kRemoteRead ? "read" : "write"));
  }
  return region->kind;
}

std::vector<transport::LocalRegionView> MemoryRegistry::Snapshot() const {
  std::lock_guard lock(mu_);
  std::vector<transport::LocalRegionView> views;
  views.reserve(by_address_.size());
  for (const auto& [address, entry] : by_address_) views.push_back(entry.view);
  return views;
}

std::vector<RemoteRegion> DescribeRegions(const std::vector<transport::LocalRegionView>& views) {
  std::vector<RemoteRegion> table;
  for (const auto& view : views) {
    table.push_back(
        {view.id, AddressOfPointer(view.address), view.length, view.access, view.kind, view.device});
  }
  return table;
}

}  // namespace xfer::core
