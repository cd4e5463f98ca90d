#include "core/region_index.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace xfer::core {
namespace {

IndexedRegion Region(uint64_t id, uint64_t address, uint64_t length,
                     MemoryKind kind = MemoryKind::kHost, int32_t device = -1) {
  return {id, address, length, Access::kRemoteWrite, kind, device};
}

TEST(RegionIndexTest, AnEmptyIndexFindsNothing) {
  RegionIndex index;
  EXPECT_FALSE(index.Find(0x1000).has_value());
  index.Publish({});
  EXPECT_FALSE(index.Find(0x1000).has_value());
}

TEST(RegionIndexTest, FindsTheRegionWithTheGreatestStartAtOrBelow) {
  RegionIndex index;
  std::vector<IndexedRegion> regions = {Region(1, 0x1000, 0x100), Region(2, 0x5000, 0x100),
                                        Region(3, 0x9000, 0x100, MemoryKind::kCuda, 3)};
  index.Publish(regions);
  EXPECT_FALSE(index.Find(0xfff).has_value());
  EXPECT_EQ(index.Find(0x1000)->id, 1u);
  EXPECT_EQ(index.Find(0x4fff)->id, 1u);  // past region 1's end: the caller's range check says no
  EXPECT_EQ(index.Find(0x5000)->id, 2u);
  const auto last = index.Find(UINT64_MAX);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->id, 3u);
  EXPECT_EQ(last->address, 0x9000u);
  EXPECT_EQ(last->length, 0x100u);
  EXPECT_EQ(last->access, Access::kRemoteWrite);
  EXPECT_EQ(last->kind, MemoryKind::kCuda);
  EXPECT_EQ(last->device, 3);
}

TEST(RegionIndexTest, RepublishingReplacesTheContentsAndGrows) {
  RegionIndex index;
  std::vector<IndexedRegion> regions;
  for (uint64_t i = 0; i < 1000; ++i) {
    regions.push_back(Region(i + 1, 0x10000 * (i + 1), 0x1000));
    index.Publish(regions);
  }
  for (uint64_t i = 0; i < 1000; ++i) EXPECT_EQ(index.Find(0x10000 * (i + 1) + 5)->id, i + 1);
  index.Publish(std::vector<IndexedRegion>{Region(7, 0x20000, 0x1000)});
  EXPECT_FALSE(index.Find(0x10000).has_value());
  EXPECT_EQ(index.Find(0x3e80000)->id, 7u);
}

// A reader racing a writer sees either the old or the new table, never a
// mix: the writer flips between two tables whose region fields agree
// within each table (address = id * 0x1000, length = id) and differ across.
TEST(RegionIndexTest, AConcurrentReaderNeverSeesATornRegion) {
  RegionIndex index;
  auto table = [](uint64_t base, size_t count) {
    std::vector<IndexedRegion> regions;
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t id = base + i;
      regions.push_back(Region(id, id * 0x1000, id, MemoryKind::kHost, static_cast<int32_t>(id)));
    }
    return regions;
  };
  const auto small = table(1, 3);
  const auto large = table(100, 40);
  index.Publish(small);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> torn{0};
  std::atomic<uint64_t> found{0};
  std::thread reader([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      for (uint64_t probe : {uint64_t{0x2000}, uint64_t{0x70000}, uint64_t{0x90000}}) {
        auto region = index.Find(probe);
        if (!region) continue;
        found.fetch_add(1, std::memory_order_relaxed);
        if (region->address != region->id * 0x1000 || region->length != region->id ||
            region->device != static_cast<int32_t>(region->id) || region->address > probe) {
          torn.fetch_add(1, std::memory_order_relaxed);
        }
      }
    }
  });
  while (found.load() == 0) std::this_thread::yield();  // the reader is running
  for (int i = 0; i < 20000; ++i) index.Publish(i % 2 == 0 ? large : small);
  stop.store(true);
  reader.join();
  EXPECT_EQ(torn.load(), 0u);
  EXPECT_GT(found.load(), 0u);
}

}  // namespace
}  // namespace xfer::core
