#include "engine_core.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>

#include "conversions.h"
#include "errors.h"

namespace py = pybind11;

namespace xfer::python {
namespace {

constexpr const char* kReleaseViews = "release them (memoryview.release(), del the array) first";

}  // namespace

EngineCore::EngineCore(std::unique_ptr<Engine> engine) : engine_(std::move(engine)) {}

EngineCore::~EngineCore() {
  {
    // Disconnecting peers joins transport threads and may wait up to
    // io_timeout for a stalled shm peer: other Python threads run meanwhile.
    py::gil_scoped_release nogil;
    engine_.reset();
  }
  // Every request has finished now (with CONNECTION_LOST if it was in
  // flight), so neither the requests nor the memory are in use.
  operations_.clear();
  registrations_.clear();
  retired_.clear();
}

void EngineCore::Track(const MemoryRegion& region, HeldBuffer held) {
  region_at_[AsAddress(region.address)] = region.id;
  registrations_.emplace(region.id, Registration{region, std::move(held)});
}

EngineCore::Registration* EngineCore::Find(uint64_t id) {
  auto it = registrations_.find(id);
  return it == registrations_.end() ? nullptr : &it->second;
}

MemoryRegion EngineCore::BeginDeregister(uint64_t id) {
  Registration* registration = Find(id);
  if (registration == nullptr) {
    throw StatusError(NotFound(fmt::format("region {} is not registered", id)));
  }
  if (registration->deregistering) {
    throw StatusError(
        FailedPrecondition(fmt::format("region {} is already being deregistered", id)));
  }
  if (registration->exports != 0) {
    throw StatusError(FailedPrecondition(fmt::format("{} buffer views still export region {}; {}",
                                                     registration->exports, id, kReleaseViews)));
  }
  Prune();
  const auto users = std::count_if(operations_.begin(), operations_.end(), [id](const auto& op) {
    return std::find(op->local_regions.begin(), op->local_regions.end(), id) !=
           op->local_regions.end();
  });
  if (users != 0) {
    throw StatusError(FailedPrecondition(fmt::format(
        "{} operations in flight use region {}; wait for their requests, or disconnect the peer, "
        "first",
        users, id)));
  }
  registration->deregistering = true;
  return registration->region;
}

void EngineCore::FinishDeregister(uint64_t id, const Status& outcome) {
  auto it = registrations_.find(id);
  if (it == registrations_.end()) return;
  if (!outcome.ok() && it->second.held.held()) retired_.push_back(std::move(it->second.held));
  region_at_.erase(AsAddress(it->second.region.address));
  registrations_.erase(it);  // releases the buffer, if still held
}

Result<EngineCore::Exported> EngineCore::BeginExport(uint64_t id) {
  const std::string name = fmt::format("region {}", id);
  if (closed_) return FailedPrecondition(name + ": its engine is closed");
  Registration* registration = Find(id);
  if (registration == nullptr) return NotFound(name + " is no longer registered");
  if (registration->deregistering) return FailedPrecondition(name + " is being deregistered");
  if (registration->region.kind == MemoryKind::kCuda) {
    return NotSupported(name +
                        " is CUDA device memory, which has no host buffer; pass "
                        "region.address to the GPU library instead");
  }
  ++registration->exports;
  return Exported{registration->region.address, registration->region.length};
}

void EngineCore::EndExport(uint64_t id) noexcept {
  if (Registration* registration = Find(id); registration != nullptr) --registration->exports;
}

void EngineCore::CheckNoExports(const char* what) const {
  for (const auto& [id, registration] : registrations_) {
    if (registration.exports == 0) continue;
    throw StatusError(
        FailedPrecondition(fmt::format("{}: {} buffer views still export region {}; {}", what,
                                       registration.exports, id, kReleaseViews)));
  }
}

std::optional<uint64_t> EngineCore::RegionHolding(const void* address) const {
  const uint64_t at = AsAddress(address);
  auto next = region_at_.upper_bound(at);
  if (next == region_at_.begin()) return std::nullopt;
  const uint64_t id = std::prev(next)->second;
  const Registration& registration = registrations_.at(id);
  if (at - AsAddress(registration.region.address) >= registration.region.length) {
    return std::nullopt;
  }
  if (registration.deregistering) {
    throw StatusError(FailedPrecondition(
        fmt::format("local address {:#x} lies in region {}, which is being deregistered", at, id)));
  }
  return id;
}

std::shared_ptr<Operation> EngineCore::BeginOperation(std::span<const TransferEntry> entries) {
  std::vector<uint64_t> ids;
  for (const TransferEntry& entry : entries) {
    if (auto id = RegionHolding(entry.local);
        id && std::find(ids.begin(), ids.end(), *id) == ids.end()) {
      ids.push_back(*id);
    }
  }
  return Keep(std::move(ids));
}

std::shared_ptr<Operation> EngineCore::BeginOperation(const void* local) {
  std::vector<uint64_t> ids;
  if (auto id = RegionHolding(local)) ids.push_back(*id);
  return Keep(std::move(ids));
}

std::shared_ptr<Operation> EngineCore::Keep(std::vector<uint64_t> local_regions) {
  // Amortized: a scan per doubling, so fire-and-forget requests cost O(1)
  // each and the list stays within twice the operations truly active.
  if (operations_.size() >= prune_at_) {
    Prune();
    prune_at_ = std::max(kMinPruneAt, 2 * operations_.size());
  }
  auto operation = std::make_shared<Operation>();
  operation->local_regions = std::move(local_regions);
  operations_.push_back(operation);
  return operation;
}

void EngineCore::Prune() {
  std::erase_if(operations_, [](const auto& op) { return !op->active(); });
}

}  // namespace xfer::python
