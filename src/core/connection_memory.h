// The local memory one connection's endpoint sees: the engine's registered
// regions, plus the staging memory that connection alone owns.
#ifndef XFER_CORE_CONNECTION_MEMORY_H_
#define XFER_CORE_CONNECTION_MEMORY_H_

#include <cstdint>
#include <vector>

#include "core/memory_registry.h"
#include "transport/local_memory.h"

namespace xfer::core {

// Why a view of its own: the staging memory must be local memory to the
// transport (verbs registers it with the NIC, shm and tcp check it), but
// never the caller's: the engine's Submit checks callers' buffers against
// the engine's registry alone, so no caller can name a staging buffer, and
// handshakes announce only the engine's regions, so no peer learns of one.
//
// Thread-safe, as both registries are.
class ConnectionMemory final : public transport::LocalMemory {
 public:
  // Staging region ids start here: far above any id the engine's registry
  // reaches, so a transport that keys its registrations by region id never
  // confuses the two.
  static constexpr uint64_t kFirstStagingId = uint64_t{1} << 62;

  // `engine` and `devices` outlive this object.
  ConnectionMemory(const transport::LocalMemory& engine, cuda::DeviceRuntime& devices)
      : engine_(engine), staging_(devices, kFirstStagingId) {}

  // The engine's answer for its regions (the common case, asked first);
  // the staging registry's for a range outside them.
  Result<MemoryKind> Locate(uint64_t address, uint64_t length, Access needed) const override {
    auto kind = engine_.Locate(address, length, needed);
    if (kind.ok() || kind.status().code() != StatusCode::kOutOfRange) return kind;
    auto staged = staging_.Locate(address, length, needed);
    return staged.ok() ? staged : kind;
  }

  std::vector<transport::LocalRegionView> Snapshot() const override {
    std::vector<transport::LocalRegionView> views = engine_.Snapshot();
    for (const auto& view : staging_.Snapshot()) views.push_back(view);
    return views;
  }

  // Where the connection's staging memory is allocated.
  MemoryRegistry& staging() { return staging_; }

 private:
  const transport::LocalMemory& engine_;
  MemoryRegistry staging_;
};

}  // namespace xfer::core

#endif  // XFER_CORE_CONNECTION_MEMORY_H_
