// Where the kernel placed a buffer's pages, as move_pages(2) reports without
// moving them: touched pages count on a node, untouched ones as unplaced,
// and a large buffer is looked at through an even sample.
#include "bench/page_nodes.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>
#include <map>
#include <string>

#include "xfer/engine.h"

namespace xfer::bench {
namespace {

constexpr size_t kPage = 4096;

uint64_t Placed(const PageNodes& nodes) {
  uint64_t placed = 0;
  for (const auto& [node, pages] : nodes.pages) {
    EXPECT_GE(node, 0);
    placed += pages;
  }
  return placed;
}

TEST(PageNodes, TouchedPagesHaveANodeAndUntouchedOnesNone) {
  constexpr size_t kLength = 256 * kPage;
  void* buffer = mmap(nullptr, kLength, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(buffer, MAP_FAILED);
  std::memset(buffer, 1, kLength / 4);  // the first 64 pages
  auto nodes = NodesOfPages(buffer, kLength, kPage);
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  EXPECT_EQ(nodes->asked, 256u);
  EXPECT_EQ(Placed(*nodes), 64u);
  EXPECT_EQ(nodes->unplaced, 192u);
  // A range that starts inside a page counts that page.
  auto inside = NodesOfPages(static_cast<char*>(buffer) + 100, kPage, kPage);
  ASSERT_TRUE(inside.ok());
  EXPECT_EQ(inside->asked, 2u);
  munmap(buffer, kLength);
}

TEST(PageNodes, ALargeBufferIsSampledEvenly) {
  const size_t length = 2 * kMostPagesAsked * kPage;
  void* buffer = mmap(nullptr, length, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(buffer, MAP_FAILED);
  auto nodes = NodesOfPages(buffer, length, kPage);
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  EXPECT_EQ(nodes->asked, kMostPagesAsked);
  EXPECT_EQ(nodes->unplaced, kMostPagesAsked);  // never touched
  munmap(buffer, length);
}

// Engine::AllocateMemory asked for a node binds its pages there before it
// touches them: every page of the region is on node 0 (this host's one);
// a node the host lacks, a negative one and device memory are refused.
TEST(PageNodes, AnAllocationAskedForANodeHasEveryPageThere) {
  EngineOptions engine_options;
  engine_options.listen_address = "";
  auto engine = Engine::Create(engine_options);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  MemoryOptions options;
  options.numa_node = 0;
  constexpr size_t kLength = 1 << 20;
  auto region = (*engine)->AllocateMemory(kLength, options);
  ASSERT_TRUE(region.ok()) << region.status().ToString();
  auto nodes = NodesOfPages(region->address, kLength, kPage);
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  EXPECT_EQ(nodes->pages, (std::map<int, uint64_t>{{0, kLength / kPage}}));
  EXPECT_EQ(nodes->unplaced, 0u);
  for (const int node : {63, -2}) {
    options.numa_node = node;
    const auto refused = (*engine)->AllocateMemory(kLength, options);
    ASSERT_FALSE(refused.ok()) << node;
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(refused.status().message().find(std::to_string(node)), std::string::npos)
        << refused.status().ToString();
  }
  options.numa_node = 0;
  options.kind = MemoryKind::kCuda;
  EXPECT_EQ((*engine)->AllocateMemory(kLength, options).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace xfer::bench
