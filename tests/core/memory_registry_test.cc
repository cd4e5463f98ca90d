#include "core/memory_registry.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>
#include <vector>

#include "common/host_memory.h"
#include "core/page_population.h"

namespace xfer::core {
namespace {

uint64_t Addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

// Registries run over the host's real CUDA loader: host memory classifies
// as host with or without a driver.

TEST(MemoryRegistryTest, AllocatesZeroedMemfdBackedMemory) {
  auto devices = cuda::DeviceRuntime::Create();
  MemoryRegistry registry(*devices);
  auto region = registry.Allocate(10000, {Access::kRemoteWrite, MemoryKind::kHost});
  ASSERT_TRUE(region.ok()) << region.status().ToString();
  EXPECT_EQ(region->length, 10000u);
  EXPECT_EQ(Addr(region->address) % 4096, 0u);
  std::vector<uint8_t> zeros(10000, 0);
  EXPECT_EQ(std::memcmp(region->address, zeros.data(), zeros.size()), 0);
  auto views = registry.Snapshot();
  ASSERT_EQ(views.size(), 1u);
  EXPECT_GE(views[0].fd, 0);
}

// Issue 43, item 2: more than the host can back is refused before a page is
// mapped (it was an OOM kill), for every size up to SIZE_MAX.
TEST(MemoryRegistryTest, MoreThanTheHostHasIsRefusedAtOnce) {
  auto devices = cuda::DeviceRuntime::Create();
  MemoryRegistry registry(*devices);
  const HostMemory host = ReadHostMemory();
  ASSERT_TRUE(host.available.has_value()) << "/proc/meminfo has no MemAvailable";
  for (size_t length : {size_t{1} << 40, *host.available + (size_t{1} << 30), SIZE_MAX}) {
    auto region = registry.Allocate(length, {Access::kRemoteWrite, MemoryKind::kHost});
    ASSERT_FALSE(region.ok()) << length;
    EXPECT_EQ(region.status().code(), StatusCode::kResourceExhausted);
    EXPECT_NE(region.status().message().find(std::to_string(length)), std::string::npos)
        << region.status().ToString();
  }
  EXPECT_TRUE(registry.Snapshot().empty());
}

TEST(MemoryRegistryTest, CheckEnforcesBoundsAndAccess) {
  auto devices = cuda::DeviceRuntime::Create();
  MemoryRegistry registry(*devices);
  auto region = registry.Allocate(4096, {Access::kRemoteWrite, MemoryKind::kHost});
  ASSERT_TRUE(region.ok());
  const uint64_t base = Addr(region->address);
  EXPECT_TRUE(registry.Check(base, 4096, Access::kRemoteWrite).ok());
  EXPECT_TRUE(registry.Check(base + 4095, 1, Access::kNone).ok());
  EXPECT_EQ(registry.Check(base + 4095, 2, Access::kNone).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(registry.Check(base - 1, 2, Access::kNone).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(registry.Check(base + 1, UINT64_MAX, Access::kNone).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(registry.Check(base, 16, Access::kRemoteRead).code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(registry.Check(base, 0, Access::kNone).code(), StatusCode::kInvalidArgument);
}

TEST(MemoryRegistryTest, RegisterRejectsOverlapAndDeregisterForgets) {
  auto devices = cuda::DeviceRuntime::Create();
  MemoryRegistry registry(*devices);
  std::vector<uint8_t> buffer(8192);
  auto first = registry.Register(buffer.data(), 4096, Access::kRemoteRead);
  ASSERT_TRUE(first.ok());
  auto overlap = registry.Register(buffer.data() + 4000, 1000, Access::kRemoteRead);
  EXPECT_EQ(overlap.status().code(), StatusCode::kInvalidArgument);
  auto second = registry.Register(buffer.data() + 4096, 4096, Access::kRemoteRead);
  ASSERT_TRUE(second.ok());
  EXPECT_NE(first->id, second->id);
  EXPECT_EQ(registry.Snapshot()[0].fd, -1);

  auto withdraw = [](const transport::LocalRegionView&) { return Status::Ok(); };
  ASSERT_TRUE(registry.Deregister(*first, withdraw).ok());
  EXPECT_EQ(registry.Check(Addr(buffer.data()), 1, Access::kNone).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(registry.Deregister(*first, withdraw).code(), StatusCode::kNotFound);
  EXPECT_EQ(DescribeRegions(registry.Snapshot()).size(), 1u);
}

TEST(MemoryRegistryTest, DeregisterWithdrawsAfterRemovalAndFreesEvenWhenWithdrawFails) {
  auto devices = cuda::DeviceRuntime::Create();
  MemoryRegistry registry(*devices);
  auto region = registry.Allocate(4096, {});
  ASSERT_TRUE(region.ok());
  bool called = false;
  Status status = registry.Deregister(*region, [&](const transport::LocalRegionView& view) {
    called = true;
    EXPECT_EQ(view.id, region->id);
    // Withdrawn only once no check can admit the region any more.
    EXPECT_EQ(registry.Check(Addr(region->address), 1, Access::kNone).code(),
              StatusCode::kOutOfRange);
    EXPECT_TRUE(registry.Snapshot().empty());
    return Timeout("a peer stalled");
  });
  EXPECT_TRUE(called);
  EXPECT_EQ(status.code(), StatusCode::kTimeout);
  EXPECT_EQ(registry.Deregister(*region, [](const auto&) { return Status::Ok(); }).code(),
            StatusCode::kNotFound);
}

TEST(MemoryRegistryTest, RejectsZeroLengthAndNull) {
  auto devices = cuda::DeviceRuntime::Create();
  MemoryRegistry registry(*devices);
  EXPECT_EQ(registry.Allocate(0, {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Register(nullptr, 10, Access::kNone).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(MemoryRegistryTest, HugepagesFailWithAClearMessageWhenNoneAreReserved) {
  auto devices = cuda::DeviceRuntime::Create();
  MemoryRegistry registry(*devices);
  auto region = registry.Allocate(4096, {Access::kRemoteWrite, MemoryKind::kHugepage});
  if (region.ok()) {
    // This host has free hugepages: the region is hugepage-backed and usable.
    static_cast<uint8_t*>(region->address)[0] = 1;
    EXPECT_EQ(region->kind, MemoryKind::kHugepage);
    return;
  }
  EXPECT_EQ(region.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(region.status().message().find("hugepage"), std::string::npos)
      << region.status().ToString();
}

}  // namespace
}  // namespace xfer::core

namespace xfer::core {
namespace {

// The pages of [address, +length) the kernel has in memory, by mincore.
size_t ResidentPages(void* address, size_t length) {
  const size_t pages = (length + 4095) / 4096;
  std::vector<unsigned char> resident(pages);
  if (mincore(address, length, resident.data()) != 0) return 0;
  size_t count = 0;
  for (unsigned char r : resident) count += r & 1;
  return count;
}

// A large region is faulted in by several threads before Allocate
// returns, zero-filled, as a small one is by MAP_POPULATE.
TEST(PagePopulationTest, ALargeAllocationIsResidentAndZeroWhenAllocateReturns) {
  auto devices = cuda::DeviceRuntime::Create();
  MemoryRegistry registry(*devices);
  const size_t length = (kParallelPopulateBytes * 2) + 12345;
  auto region = registry.Allocate(length, {});
  ASSERT_TRUE(region.ok()) << region.status().ToString();
  EXPECT_EQ(ResidentPages(region->address, length), (length + 4095) / 4096);
  const auto* bytes = static_cast<const uint8_t*>(region->address);
  for (size_t i = 0; i < length; i += 4093) ASSERT_EQ(bytes[i], 0) << i;
  ASSERT_TRUE(registry.Deregister(*region, [](const auto&) { return Status::Ok(); }).ok());
}

TEST(PagePopulationTest, EveryShareOfEveryThreadIsFaultedIn) {
  for (unsigned threads : {1u, 2u, 3u, 7u}) {
    const size_t length = (size_t{5} << 20) + 4096 * 3;
    void* address = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(address, MAP_FAILED);
    EXPECT_EQ(ResidentPages(address, length), 0u) << "resident before populating";
    ASSERT_TRUE(PopulateInParallel(address, length, 4096, threads).ok());
    EXPECT_EQ(ResidentPages(address, length), length / 4096) << threads << " threads";
    munmap(address, length);
  }
  EXPECT_EQ(PopulationThreads(kParallelPopulateBytes - 1), 0u);
  EXPECT_LE(PopulationThreads(size_t{64} << 30), 8u);
}

}  // namespace
}  // namespace xfer::core
