#include "core/region_index.h"

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace xfer::core {
namespace {

constexpr size_t kInitialCapacity = 16;

uint64_t PackAttributes(const IndexedRegion& region) {
  return static_cast<uint64_t>(region.access) |
         static_cast<uint64_t>(region.kind) << 16 |
         static_cast<uint64_t>(static_cast<uint32_t>(region.device + 1)) << 32;
}

void UnpackAttributes(uint64_t attributes, IndexedRegion& region) {
  region.access = static_cast<Access>(attributes & 0xffff);
  region.kind = static_cast<MemoryKind>((attributes >> 16) & 0xffff);
  region.device = static_cast<int32_t>(static_cast<uint32_t>(attributes >> 32)) - 1;
}

void CpuRelax() {
#if defined(__x86_64__)
  _mm_pause();
#endif
}

}  // namespace

void RegionIndex::Publish(std::span<const IndexedRegion> sorted) {
  Table* target = tables_.empty() ? nullptr : tables_.back().get();
  if (target == nullptr || target->capacity < sorted.size()) {
    const size_t capacity = std::max({sorted.size(), kInitialCapacity,
                                      target == nullptr ? 0 : 2 * target->capacity});
    tables_.push_back(std::make_unique<Table>(capacity));
    target = tables_.back().get();
  }
  const uint64_t sequence = sequence_.load(std::memory_order_relaxed);
  sequence_.store(sequence + 1, std::memory_order_relaxed);
  // Release stores (plain stores on x86) rather than a release fence: a
  // reader whose acquire load sees any of them then sees the odd sequence
  // and retries. ThreadSanitizer models this; it does not model fences.
  for (size_t i = 0; i < sorted.size(); ++i) {
    Slot& slot = target->slots[i];
    slot.id.store(sorted[i].id, std::memory_order_release);
    slot.address.store(sorted[i].address, std::memory_order_release);
    slot.length.store(sorted[i].length, std::memory_order_release);
    slot.attributes.store(PackAttributes(sorted[i]), std::memory_order_release);
  }
  target->count.store(sorted.size(), std::memory_order_release);
  // Release: a reader that loads the new table sees it constructed.
  table_.store(target, std::memory_order_release);
  sequence_.store(sequence + 2, std::memory_order_release);
}

size_t RegionIndex::UpperBound(const Table& table, uint64_t address) {
  // Clamped: a torn read may pair a count with a smaller table.
  size_t low = 0;
  size_t high = std::min(table.count.load(std::memory_order_acquire), table.capacity);
  while (low < high) {
    const size_t middle = low + (high - low) / 2;
    if (table.slots[middle].address.load(std::memory_order_acquire) <= address) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

std::optional<IndexedRegion> RegionIndex::Find(uint64_t address) const {
  // The fields are read into scalars, and the region built only once the
  // read is known to be consistent: no store is read back in the loop.
  for (;;) {
    const uint64_t before = sequence_.load(std::memory_order_acquire);
    if ((before & 1) != 0) {
      CpuRelax();
      continue;
    }
    const Table* table = table_.load(std::memory_order_acquire);
    const size_t after_last = table == nullptr ? 0 : UpperBound(*table, address);
    uint64_t id = 0, start = 0, length = 0, attributes = 0;
    if (after_last != 0) {
      const Slot& slot = table->slots[after_last - 1];
      // Acquire loads (plain loads on x86) keep the sequence's re-read
      // below after them, where a fence would (see Publish).
      id = slot.id.load(std::memory_order_acquire);
      start = slot.address.load(std::memory_order_acquire);
      length = slot.length.load(std::memory_order_acquire);
      attributes = slot.attributes.load(std::memory_order_acquire);
    }
    if (sequence_.load(std::memory_order_relaxed) != before) continue;
    if (after_last == 0) return std::nullopt;
    IndexedRegion region;
    region.id = id;
    region.address = start;
    region.length = length;
    UnpackAttributes(attributes, region);
    return region;
  }
}

}  // namespace xfer::core
