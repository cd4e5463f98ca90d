// A sorted index of the registered regions that the hot path reads without
// a lock: every Submit checks each entry's local range against it.
//
// A seqlock publishes it. Readers retry while a writer republishes, which
// happens only when a region is registered or deregistered. The slots are
// atomics, stored release and loaded acquire (plain moves on x86), so a
// reader racing a writer reads stale values, never undefined ones, and then
// discards them. Arrays that a growth retired are kept until the index is
// destroyed, because a reader may still be in one.
#ifndef XFER_CORE_REGION_INDEX_H_
#define XFER_CORE_REGION_INDEX_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "xfer/memory.h"

namespace xfer::core {

struct IndexedRegion {
  uint64_t id = 0;
  uint64_t address = 0;
  uint64_t length = 0;
  Access access = Access::kNone;
  MemoryKind kind = MemoryKind::kHost;
  int32_t device = -1;
};

class RegionIndex {
 public:
  RegionIndex() = default;
  RegionIndex(const RegionIndex&) = delete;
  RegionIndex& operator=(const RegionIndex&) = delete;

  // Replaces the index's contents with `sorted` (ascending, disjoint).
  // Callers serialize Publish; it may run concurrently with Find.
  void Publish(std::span<const IndexedRegion> sorted);

  // The region with the greatest start address <= `address`, if any.
  // Lock-free and allocation-free; wait-free unless a Publish is running.
  std::optional<IndexedRegion> Find(uint64_t address) const;

 private:
  struct Slot {
    std::atomic<uint64_t> id{0};
    std::atomic<uint64_t> address{0};
    std::atomic<uint64_t> length{0};
    std::atomic<uint64_t> attributes{0};  // access | kind << 16 | (device + 1) << 32
  };
  struct Table {
    explicit Table(size_t slot_count) : capacity(slot_count), slots(new Slot[slot_count]) {}
    const size_t capacity;
    std::atomic<size_t> count{0};
    const std::unique_ptr<Slot[]> slots;
  };

  // The first slot whose start is above `address`, among the table's count.
  static size_t UpperBound(const Table& table, uint64_t address);

  std::atomic<uint64_t> sequence_{0};  // odd while a Publish is running
  std::atomic<const Table*> table_{nullptr};
  std::vector<std::unique_ptr<Table>> tables_;  // the writer's; the last is current
};

}  // namespace xfer::core

#endif  // XFER_CORE_REGION_INDEX_H_
