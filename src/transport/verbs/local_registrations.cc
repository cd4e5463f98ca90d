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

LocalRegistrations::LocalRegistrations(ibv_pd* pd, const LocalMemory* local, uint64_t piece_bytes)
    : pd_(pd), local_(local), piece_bytes_(piece_bytes) {}

Status LocalRegistrations::RegisterAll(std::span<const LocalRegionView> regions) {
  std::vector<const LocalRegionView*> todo;
  for (const auto& view : regions) {
    // The engine carries no device memory over verbs yet (no device_memory
    // capability), and ibv_reg_mr of a device pointer is GPUDirect's to do.
    if (view.kind != MemoryKind::kCuda) todo.push_back(&view);
  }
  auto registered = Register(todo);
  if (!registered.ok()) return registered.status();
  std::unique_lock lock(mu_);
  InsertLocked(std::move(registered.value()));
  return Status::Ok();
}

Result<std::vector<LocalRegistrations::Registration>> LocalRegistrations::Register(
    std::span<const LocalRegionView* const> views) const {
  struct PieceToRegister {
    const LocalRegionView* view;
    uint64_t offset;
    uint64_t length;
  };
  std::vector<PieceToRegister> pieces;
  uint64_t bytes = 0;
  for (const LocalRegionView* view : views) {
    for (uint64_t offset = 0; offset < view->length; offset += piece_bytes_) {
      pieces.push_back({view, offset, std::min(piece_bytes_, view->length - offset)});
    }
    bytes += view->length;
  }
  std::vector<Result<Registration>> done;  // move-only: filled one by one
  done.reserve(pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) done.emplace_back(Internal("not registered"));
  const unsigned threads =
      bytes >= kParallelRegistrationBytes
          ? static_cast<unsigned>(std::min<size_t>(
                {pieces.size(), size_t{kMaxRegistrationThreads},
                 size_t{std::max(1u, std::thread::hardware_concurrency())}}))
          : 1;
  auto register_piece = [&](const PieceToRegister& piece) -> Result<Registration> {
    const LocalRegionView& view = *piece.view;
    auto* start = static_cast<uint8_t*>(view.address) + piece.offset;
    auto mr = ::xfer::verbs::RegisterMemoryRegion(pd_, start, piece.length,
                                                  AccessFlagsFor(view.access));
    if (!mr.ok()) {
      return mr.status().WithContext(fmt::format(
          "verbs: registering region {} (bytes {} to {} of {})", view.id, piece.offset,
          piece.offset + piece.length, view.length));
    }
    return Registration{view.id,        AddressOf(start), piece.length, AddressOf(view.address),
                        view.length,    view.access,      std::move(mr.value())};
  };
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < pieces.size(); i = next++) done[i] = register_piece(pieces[i]);
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
  std::vector<Registration> registered;
  registered.reserve(done.size());
  for (auto& registration : done) {
    if (!registration.ok()) return registration.status();
    registered.push_back(std::move(registration.value()));
  }
  return registered;
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
  // Every piece of a region is registered, and inserted, together: inside
  // the region means inside this piece from `address` on.
  return RangeInside(address, length, r.region_address, r.region_length) ? &r : nullptr;
}

void LocalRegistrations::InsertLocked(std::vector<Registration> added) {
  // A registration overlapping a new region belongs to a region the engine
  // has since deregistered (regions never overlap in its table): every
  // piece of that region goes.
  std::vector<const Registration*> regions;  // one piece of each added region
  for (const Registration& a : added) {
    if (regions.empty() || regions.back()->id != a.id) regions.push_back(&a);
  }
  std::vector<uint64_t> stale;
  for (const Registration& r : registrations_) {
    for (const Registration* a : regions) {
      if (Overlaps(r.address, r.length, a->region_address, a->region_length)) {
        stale.push_back(r.id);
        break;
      }
    }
  }
  std::erase_if(registrations_, [&](const Registration& r) {
    return std::find(stale.begin(), stale.end(), r.id) != stale.end();
  });
  std::move(added.begin(), added.end(), std::back_inserter(registrations_));
  std::sort(registrations_.begin(), registrations_.end(),
            [](const Registration& a, const Registration& b) { return a.address < b.address; });
}

Result<KeyRun> LocalRegistrations::LocalKey(const void* address, uint64_t length) {
  const uint64_t start = AddressOf(address);
  auto run = [&](const Registration& r) {
    return KeyRun{r.mr->lkey, std::min(length, r.address + r.length - start)};
  };
  {
    std::shared_lock lock(mu_);
    if (const Registration* r = FindLocked(start, length)) return run(*r);
  }
  // Not registered with the device yet: a region the engine registered
  // after connect. Find it in the engine's live table and register it with
  // no lock held, so that posts on other regions are not held up.
  for (const auto& view : local_->Snapshot()) {
    if (!RangeInside(start, length, AddressOf(view.address), view.length)) continue;
    const LocalRegionView* one[] = {&view};
    auto registered = Register(one);
    if (!registered.ok()) return registered.status();
    std::unique_lock lock(mu_);
    // Another post may have registered it meanwhile: keep that one (ours
    // is released on return).
    if (const Registration* r = FindLocked(start, length)) return run(*r);
    // Deregistered by the engine meanwhile: its Withdraw, which takes mu_
    // after the engine's table lost the region, found nothing to remove.
    if (!local_->Locate(start, length, Access::kNone).ok()) break;
    InsertLocked(std::move(registered.value()));
    const Registration* inserted = FindLocked(start, length);
    if (inserted == nullptr) return Internal("verbs: a region just registered is not found");
    return run(*inserted);
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
