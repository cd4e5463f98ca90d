#include "bench/matrix/side_buffers.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

namespace xfer::matrix {

const MemoryPlacement* PlacementFor(char letter, std::string_view chosen) {
  const MemoryPlacement* placement = FindPlacement(chosen);
  if (placement != nullptr && placement->letter == letter) return placement;
  return DefaultPlacement(letter);
}

std::vector<const MemoryPlacement*> PlacementsNeeded(const std::vector<Direction>& directions,
                                                     bool initiator, std::string_view chosen) {
  std::vector<const MemoryPlacement*> needed;
  for (const Direction& direction : directions) {
    const MemoryPlacement* placement =
        PlacementFor(initiator ? direction.initiator : direction.target, chosen);
    if (placement != nullptr && std::find(needed.begin(), needed.end(), placement) == needed.end()) {
      needed.push_back(placement);
    }
  }
  return needed;
}

Result<std::vector<PlacedBuffer>> AllocateSideBuffers(
    Engine& engine, const std::vector<const MemoryPlacement*>& placements, uint64_t length,
    int cuda_device) {
  std::vector<PlacedBuffer> buffers;
  for (const MemoryPlacement* placement : placements) {
    PlacedBuffer buffer;
    buffer.placement = placement;
    if (!placement->engine_kind.has_value()) {
      buffer.reason = std::string(placement->unsupported);
      buffers.push_back(std::move(buffer));
      continue;
    }
    MemoryOptions options;
    options.access = Access::kRemoteReadWrite;
    options.kind = *placement->engine_kind;
    options.device = cuda_device;
    const auto start = std::chrono::steady_clock::now();
    auto region = engine.AllocateMemory(length, options);
    if (region.ok()) {
      buffer.available = true;
      buffer.region = *region;
      buffer.registration.kind = options.kind;
      buffer.registration.bytes = length;
      buffer.registration.register_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      buffer.registration.deregister_s = -1.0;
    } else if (region.status().code() == StatusCode::kNotSupported ||
               region.status().code() == StatusCode::kFailedPrecondition) {
      buffer.reason = fmt::format("{} memory: {}", placement->name, region.status().message());
    } else {
      return region.status().WithContext(
          fmt::format("allocating {} bytes of {} memory", length, placement->name));
    }
    buffers.push_back(std::move(buffer));
  }
  return buffers;
}

const PlacedBuffer* FindBuffer(const std::vector<PlacedBuffer>& buffers, std::string_view placement) {
  for (const PlacedBuffer& buffer : buffers) {
    if (buffer.placement->name == placement) return &buffer;
  }
  return nullptr;
}

}  // namespace xfer::matrix
