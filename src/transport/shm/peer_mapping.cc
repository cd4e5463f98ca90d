#include "transport/shm/peer_mapping.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <utility>

#include "common/clock.h"
#include "common/socket.h"

namespace xfer::transport::shm {
namespace {

// Length to map for a region of `length` bytes backed by the file `st`
// describes (st.st_size >= length). hugetlbfs only maps and unmaps whole huge pages (st_blksize), and
// the engine sizes its memfds to whole pages, so map up to the next block.
size_t MapLength(uint64_t length, const struct stat& st) {
  const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t block = std::max(page, static_cast<uint64_t>(st.st_blksize));
  const uint64_t rounded = (length + block - 1) / block * block;
  return static_cast<size_t>(std::min(rounded, static_cast<uint64_t>(st.st_size)));
}

// A peer that shrank its memfd under our mapping would make our next copy
// fault with SIGBUS. Seal the size when the memfd allows sealing. Best
// effort: the engine's memfds may not allow it, and a same-user peer that
// wants to hurt us can ptrace us anyway, so this guards against bugs, not
// malice.
void SealSize(int fd) {
  int seals = fcntl(fd, F_GET_SEALS);
  if (seals >= 0 && (seals & F_SEAL_SHRINK) == 0) fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK);
}

Result<void*> MapShared(const RemoteRegion& region, int fd, size_t& map_length) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return ProtocolError(ErrnoMessage("fstat on peer descriptor", errno));
  if (!S_ISREG(st.st_mode)) {
    return ProtocolError(
        fmt::format("peer region id {} came with a descriptor that is not a file", region.id));
  }
  if (st.st_size < 0 || static_cast<uint64_t>(st.st_size) < region.length) {
    return ProtocolError(fmt::format("peer region id {} is {} bytes but its memfd only {}",
                                     region.id, region.length, st.st_size));
  }
  SealSize(fd);
  map_length = MapLength(region.length, st);
  void* base = mmap(nullptr, map_length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    const int err = errno;
    std::string what = fmt::format("mmap of peer region id {} ({} bytes)", region.id, map_length);
    if (err == ENOMEM) return ResourceExhausted(ErrnoMessage(what, err));
    return ProtocolError(ErrnoMessage(what, err));
  }
  return base;
}

// Page-table entries for the first kPrefaultBudget of mapping work are
// made writable at connect time, so that the first transfers into a
// region are not timed with a minor fault per page (0.25 s per 64 MiB was
// measured); past the budget, pages fault in on first touch, so that tens
// of GiB cannot hold the connection's setup past its deadline.
constexpr std::chrono::milliseconds kPrefaultBudget{1000};
constexpr size_t kPrefaultChunk = size_t{64} << 20;

// MADV_POPULATE_WRITE (Linux 5.14) maps every page writable without
// touching its contents; on older kernels it fails and the pages fault in
// lazily, as they always did.
void Prefault(uint8_t* base, size_t length, Deadline budget) {
  for (size_t done = 0; done < length && !budget.expired(); done += kPrefaultChunk) {
    if (madvise(base + done, std::min(kPrefaultChunk, length - done), MADV_POPULATE_WRITE) != 0) {
      return;
    }
  }
}

}  // namespace

PeerMapping::~PeerMapping() { Release(); }

PeerMapping::PeerMapping(PeerMapping&& other) noexcept
    : regions_(std::move(other.regions_)),
      mappings_(std::move(other.mappings_)),
      imports_(std::move(other.imports_)),
      devices_(other.devices_),
      revocations_(std::move(other.revocations_)) {
  other.regions_.clear();
  other.mappings_.clear();
  other.imports_.clear();
}

PeerMapping& PeerMapping::operator=(PeerMapping&& other) noexcept {
  if (this != &other) {
    Release();
    regions_ = std::move(other.regions_);
    mappings_ = std::move(other.mappings_);
    imports_ = std::move(other.imports_);
    devices_ = other.devices_;
    revocations_ = std::move(other.revocations_);
    other.regions_.clear();
    other.mappings_.clear();
    other.imports_.clear();
  }
  return *this;
}

void PeerMapping::Release() {
  regions_.clear();
  for (const Mapping& m : mappings_) munmap(m.base, m.length);
  mappings_.clear();
  for (const DeviceImport& import : imports_) (void)devices_->CloseIpc(import.base, import.device);
  imports_.clear();
  revocations_ = RevocationTable();
}

Result<PeerMapping> PeerMapping::Create(const RemoteMemory& remote,
                                        std::vector<SharedRegion> shared,
                                        std::vector<DeviceRow> device_rows,
                                        RevocationTable revocations,
                                        cuda::DeviceRuntime& devices) {
  if (revocations.size() != remote.regions().size()) {
    return Internal("shm: the peer's revocation table was not mapped against its region table");
  }
  PeerMapping mapping;
  mapping.devices_ = &devices;
  mapping.revocations_ = std::move(revocations);
  for (size_t i = 0; i < remote.regions().size(); ++i) {
    const RemoteRegion& r = remote.regions()[i];
    PeerRegion region;
    region.address = r.address;
    region.length = r.length;
    region.access = r.access;
    region.kind = r.kind;
    region.device = r.device;
    if (r.kind == MemoryKind::kCuda) region.unreachable = "the peer did not export it";
    region.revocation = &mapping.revocations_.slot(i);
    mapping.regions_.push_back(std::move(region));
  }
  mapping.OpenDeviceRows(std::move(device_rows));
  const Deadline prefault_budget = Deadline::After(kPrefaultBudget);
  for (const SharedRegion& s : shared) {
    auto it = std::lower_bound(mapping.regions_.begin(), mapping.regions_.end(), s.region.address,
                               [](const PeerRegion& r, uint64_t a) { return r.address < a; });
    if (it == mapping.regions_.end() || it->address != s.region.address ||
        it->length != s.region.length || it->mapped != nullptr) {
      return Internal("shm: a shared region was not validated against the peer's table");
    }
    size_t map_length = 0;
    auto base = MapShared(s.region, s.fd.get(), map_length);
    if (!base.ok()) return base.status();  // `mapping` unmaps what it holds
    mapping.mappings_.push_back(Mapping{*base, map_length});
    it->mapped = static_cast<uint8_t*>(*base);
    Prefault(it->mapped, map_length, prefault_budget);
  }
  return mapping;
}

void PeerMapping::OpenDeviceRows(std::vector<DeviceRow> rows) {
  for (DeviceRow& row : rows) {
    auto it = std::lower_bound(regions_.begin(), regions_.end(), row.region.address,
                               [](const PeerRegion& r, uint64_t a) { return r.address < a; });
    if (it == regions_.end() || it->address != row.region.address) continue;  // validated before
    PeerRegion& region = *it;
    if (!row.shareable) {
      region.unreachable = "the peer could not export it: " + row.why_not;
      continue;
    }
    // One open per allocation: a second open of the same handle is an
    // error on older drivers, and one close must match one open.
    auto import = std::find_if(imports_.begin(), imports_.end(), [&](const DeviceImport& i) {
      return i.handle == row.handle && i.device == row.region.device;
    });
    if (import == imports_.end()) {
      auto base = devices_->OpenIpc(row.handle, row.region.device);
      if (!base.ok()) {
        region.unreachable = "its CUDA IPC handle did not open here: " + base.status().ToString();
        continue;
      }
      // The size comes from our driver, not from the peer: a row that
      // claims more than the allocation holds must not reach past it.
      auto opened = devices_->Classify(reinterpret_cast<const void*>(*base), 1);
      imports_.push_back(DeviceImport{row.handle, row.region.device, *base,
                                      opened.ok() && opened->device ? opened->size : 0});
      import = std::prev(imports_.end());
    }
    const uint64_t offset = row.region.address - row.allocation_base;
    if (!RangeInside(offset, row.region.length, 0, import->size)) {
      region.unreachable = fmt::format(
          "the peer says it lies {} bytes into an allocation of {} bytes", offset, import->size);
      continue;
    }
    region.device_mapped =
        reinterpret_cast<uint8_t*>(import->base + (row.region.address - row.allocation_base));
    region.unreachable.clear();
  }
}

Result<const PeerRegion*> PeerMapping::Resolve(uint64_t address, uint64_t length,
                                               Access needed) const {
  if (length == 0) return InvalidArgument("zero-length remote range");
  // The last region starting at or below `address` is the only candidate.
  auto it = std::upper_bound(regions_.begin(), regions_.end(), address,
                             [](uint64_t a, const PeerRegion& r) { return a < r.address; });
  if (it == regions_.begin() ||
      !RangeInside(address, length, std::prev(it)->address, std::prev(it)->length)) {
    return OutOfRange(
        fmt::format("shm: remote range [{:#x}, +{}) is not inside one region the peer shared",
                    address, length));
  }
  const PeerRegion& region = *std::prev(it);
  if (!HasAccess(region.access, needed)) {
    return PermissionDenied(fmt::format("shm: peer region at {:#x} does not grant remote {}",
                                        region.address,
                                        needed == Access::kRemoteRead ? "read" : "write"));
  }
  return &region;
}

}  // namespace xfer::transport::shm
