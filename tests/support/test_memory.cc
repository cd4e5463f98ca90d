#include "support/test_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

namespace xfer::testing {

TestMemory::~TestMemory() {
  regions_.insert(regions_.end(), withdrawn_.begin(), withdrawn_.end());
  for (auto& r : regions_) {
    if (r.fd >= 0) {
      munmap(r.address, r.length);
      close(r.fd);
    } else {
      std::free(r.address);
    }
  }
}

transport::LocalRegionView TestMemory::Add(size_t length, Access access, bool memfd) {
  transport::LocalRegionView view;
  view.length = length;
  view.access = access;
  if (memfd) {
    view.fd = memfd_create("xfer-test", MFD_CLOEXEC);
    if (view.fd < 0 || ftruncate(view.fd, static_cast<off_t>(length)) != 0) {
      throw std::runtime_error("memfd_create/ftruncate failed");
    }
    view.address = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, view.fd, 0);
    if (view.address == MAP_FAILED) throw std::runtime_error("mmap failed");
  } else {
    view.address = std::aligned_alloc(4096, (length + 4095) / 4096 * 4096);
    if (view.address == nullptr) throw std::runtime_error("aligned_alloc failed");
  }
  std::lock_guard lock(mu_);
  view.id = regions_.size() + withdrawn_.size() + 1;
  regions_.push_back(view);
  return view;
}

void TestMemory::Withdraw(uint64_t id) {
  std::lock_guard lock(mu_);
  for (auto it = regions_.begin(); it != regions_.end(); ++it) {
    if (it->id != id) continue;
    withdrawn_.push_back(*it);
    regions_.erase(it);
    return;
  }
}

Result<MemoryKind> TestMemory::Locate(uint64_t address, uint64_t length, Access needed) const {
  if (length == 0) return InvalidArgument("zero-length range");
  std::lock_guard lock(mu_);
  for (const auto& r : regions_) {
    if (transport::RangeInside(address, length, reinterpret_cast<uint64_t>(r.address), r.length)) {
      if (!HasAccess(r.access, needed)) return PermissionDenied("region lacks access");
      return r.kind;
    }
  }
  return OutOfRange("range not registered");
}

std::vector<transport::LocalRegionView> TestMemory::Snapshot() const {
  std::lock_guard lock(mu_);
  return regions_;
}

std::vector<RemoteRegion> TestMemory::AsRemote() const {
  std::vector<RemoteRegion> out;
  for (const auto& r : Snapshot()) {
    out.push_back({r.id, reinterpret_cast<uint64_t>(r.address), r.length, r.access});
  }
  return out;
}

}  // namespace xfer::testing
