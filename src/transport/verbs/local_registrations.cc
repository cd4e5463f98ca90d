#include "transport/verbs/local_registrations.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <iterator>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "common/socket.h"
#include "transport/remote_memory.h"
#include "verbs/memory_resources.h"

namespace xfer::transport::verbs {
namespace {

// RegisterAll registers regions side by side when they add up to this much.
constexpr uint64_t kParallelRegistrationBytes = uint64_t{64} << 20;
constexpr unsigned kMaxRegistrationThreads = 4;

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
  std::vector<const LocalRegionView*> todo;
  uint64_t bytes = 0;
  for (const auto& view : regions) {
    // The engine carries no device memory over verbs yet (no device_memory
    // capability), and ibv_reg_mr of a device pointer is GPUDirect's to do.
    if (view.kind == MemoryKind::kCuda) continue;
    todo.push_back(&view);
    bytes += view.length;
  }
  std::vector<Result<Registration>> done;  // move-only: filled one by one
  done.reserve(todo.size());
  for (size_t i = 0; i < todo.size(); ++i) done.emplace_back(Internal("not registered"));
  const unsigned threads =
      bytes >= kParallelRegistrationBytes
          ? static_cast<unsigned>(std::min<size_t>(
                {todo.size(), size_t{kMaxRegistrationThreads},
                 size_t{std::max(1u, std::thread::hardware_concurrency())}}))
          : 1;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < todo.size(); i = next++) done[i] = Register(*todo[i]);
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // this thread does their share
    }
  }
  work();
  for (auto& helper : helpers) helper.join();
  // All or none: the registrations made are released with `done`.
  for (auto& registration : done) {
    if (!registration.ok()) return registration.status();
  }
  std::unique_lock lock(mu_);
  for (auto& registration : done) (void)InsertLocked(std::move(registration.value()));
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

Result<LocalRegistrations::Registration> LocalRegistrations::Register(
    const LocalRegionView& view) const {
  auto mr = ::xfer::verbs::RegisterMemoryRegion(pd_, view.address, view.length,
                                                AccessFlagsFor(view.access));
  if (!mr.ok()) return mr.status().WithContext(fmt::format("verbs: registering region {}", view.id));
  return Registration{view.id, AddressOf(view.address), view.length, view.access,
                      std::move(mr.value())};
}

uint32_t LocalRegistrations::InsertLocked(Registration registration) {
  // A registration overlapping the new region belongs to a region the
  // engine has since deregistered (regions never overlap in its table).
  std::erase_if(registrations_, [&](const Registration& r) {
    return Overlaps(r.address, r.length, registration.address, registration.length);
  });
  const uint32_t lkey = registration.mr->lkey;
  auto at = std::upper_bound(
      registrations_.begin(), registrations_.end(), registration.address,
      [](uint64_t a, const Registration& r) { return a < r.address; });
  registrations_.insert(at, std::move(registration));
  return lkey;
}

Result<uint32_t> LocalRegistrations::LocalKey(const void* address, uint64_t length) {
  const uint64_t start = AddressOf(address);
  {
    std::shared_lock lock(mu_);
    if (const Registration* r = FindLocked(start, length)) return r->mr->lkey;
  }
  // Not registered with the device yet: a region the engine registered
  // after connect. Find it in the engine's live table and register it with
  // no lock held, so that posts on other regions are not held up.
  for (const auto& view : local_->Snapshot()) {
    if (!RangeInside(start, length, AddressOf(view.address), view.length)) continue;
    auto registration = Register(view);
    if (!registration.ok()) return registration.status();
    std::unique_lock lock(mu_);
    // Another post may have registered it meanwhile: keep that one (ours
    // is released on return).
    if (const Registration* r = FindLocked(start, length)) return r->mr->lkey;
    // Deregistered by the engine meanwhile: its Withdraw, which takes mu_
    // after the engine's table lost the region, found nothing to remove.
    if (!local_->Locate(start, length, Access::kNone).ok()) break;
    return InsertLocked(std::move(registration.value()));
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
