#include "transport/verbs/local_registrations.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <mutex>
#include <vector>

#include "common/socket.h"
#include "transport/remote_memory.h"
#include "verbs/memory_resources.h"

namespace xfer::transport::verbs {
namespace {

uint64_t AddressOf(const void* p) { return reinterpret_cast<uint64_t>(p); }

bool Overlaps(uint64_t a, uint64_t a_length, uint64_t b, uint64_t b_length) {
  return a < b + b_length && b < a + a_length;
}

}  // namespace

int AccessFlagsFor(Access access) {
  int flags = IBV_ACCESS_LOCAL_WRITE;
  if (HasAccess(access, Access::kRemoteRead)) flags |= IBV_ACCESS_REMOTE_READ;
  if (HasAccess(access, Access::kRemoteWrite)) flags |= IBV_ACCESS_REMOTE_WRITE;
  if (HasAccess(access, Access::kRemoteReadWrite)) flags |= IBV_ACCESS_REMOTE_ATOMIC;
  return flags;
}

LocalRegistrations::LocalRegistrations(ibv_pd* pd, const LocalMemory* local)
    : pd_(pd), local_(local) {}

Status LocalRegistrations::RegisterAll(std::span<const LocalRegionView> regions) {
  std::unique_lock lock(mu_);
  for (const auto& view : regions) {
    // The engine carries no device memory over verbs yet (no device_memory
    // capability), and ibv_reg_mr of a device pointer is GPUDirect's to do.
    if (view.kind == MemoryKind::kCuda) continue;
    auto added = AddLocked(view);
    if (!added.ok()) return added.status();
  }
  return Status::Ok();
}

std::vector<RegionKey> LocalRegistrations::Keys() const {
  std::shared_lock lock(mu_);
  std::vector<RegionKey> keys;
  keys.reserve(registrations_.size());
  for (const auto& r : registrations_) {
    keys.push_back({r.id, r.address, r.length, r.mr->rkey, r.access});
  }
  return keys;
}

const LocalRegistrations::Registration* LocalRegistrations::FindLocked(uint64_t address,
                                                                       uint64_t length) const {
  auto it = std::upper_bound(registrations_.begin(), registrations_.end(), address,
                             [](uint64_t a, const Registration& r) { return a < r.address; });
  if (it == registrations_.begin()) return nullptr;
  const Registration& r = *std::prev(it);
  return RangeInside(address, length, r.address, r.length) ? &r : nullptr;
}

Result<uint32_t> LocalRegistrations::AddLocked(const LocalRegionView& view) {
  const uint64_t address = AddressOf(view.address);
  auto mr = ::xfer::verbs::RegisterMemoryRegion(pd_, view.address, view.length,
                                                AccessFlagsFor(view.access));
  if (!mr.ok()) return mr.status().WithContext(fmt::format("verbs: registering region {}", view.id));
  // A registration overlapping the new region belongs to a region the
  // engine has since deregistered (regions never overlap in its table).
  std::erase_if(registrations_, [&](const Registration& r) {
    return Overlaps(r.address, r.length, address, view.length);
  });
  const uint32_t lkey = (*mr)->lkey;
  Registration entry{view.id, address, view.length, view.access, std::move(mr.value())};
  auto at = std::upper_bound(registrations_.begin(), registrations_.end(), address,
                             [](uint64_t a, const Registration& r) { return a < r.address; });
  registrations_.insert(at, std::move(entry));
  return lkey;
}

Result<uint32_t> LocalRegistrations::LocalKey(const void* address, uint64_t length) {
  const uint64_t start = AddressOf(address);
  {
    std::shared_lock lock(mu_);
    if (const Registration* r = FindLocked(start, length)) return r->mr->lkey;
  }
  // Not registered with the device yet: a region the engine registered
  // after connect. Find it in the engine's live table.
  std::unique_lock lock(mu_);
  if (const Registration* r = FindLocked(start, length)) return r->mr->lkey;
  for (const auto& view : local_->Snapshot()) {
    if (!RangeInside(start, length, AddressOf(view.address), view.length)) continue;
    return AddLocked(view);
  }
  return OutOfRange(
      fmt::format("verbs: local range [{:#x}, +{}) is not inside one registered region", start,
                  length));
}

Status LocalRegistrations::Withdraw(uint64_t region_id) {
  std::vector<Registration> withdrawn;
  {
    std::unique_lock lock(mu_);
    auto gone = std::stable_partition(registrations_.begin(), registrations_.end(),
                                      [&](const Registration& r) { return r.id != region_id; });
    std::move(gone, registrations_.end(), std::back_inserter(withdrawn));
    registrations_.erase(gone, registrations_.end());
  }
  // Deregistered outside the lock: ibv_dereg_mr may wait for the device.
  Status status;
  for (Registration& r : withdrawn) {
    const int err = ibv_dereg_mr(r.mr.release());
    if (err != 0 && status.ok()) {
      status = IoError(ErrnoMessage(
          fmt::format("verbs: ibv_dereg_mr of region {} (the device may still access it)", r.id),
          err));
    }
  }
  return status;
}

}  // namespace xfer::transport::verbs
