// Which NUMA node holds each page of a host buffer, as the kernel says:
// move_pages(2) with no target nodes reports where every page is without
// moving any (Mooncake reads a buffer's node the same way). What the JSON
// records of the test buffer, so that a run on the far node shows as one.
#ifndef XFER_BENCH_PAGE_NODES_H_
#define XFER_BENCH_PAGE_NODES_H_

#include <cstddef>
#include <cstdint>
#include <map>

#include "xfer/status.h"

namespace xfer::bench {

struct PageNodes {
  std::map<int, uint64_t> pages;  // NUMA node -> pages of the buffer there
  uint64_t unplaced = 0;          // pages not yet backed by memory
  uint64_t asked = 0;             // pages looked at (every one, or an even sample)
};

// The nodes of [address, address + length)'s pages of `page_size` bytes;
// at most kMostPagesAsked of them, evenly spread, for a larger buffer.
// Errors: kIoError when the kernel refuses (not a NUMA kernel).
inline constexpr uint64_t kMostPagesAsked = uint64_t{1} << 16;
Result<PageNodes> NodesOfPages(const void* address, size_t length, size_t page_size);

}  // namespace xfer::bench

#endif  // XFER_BENCH_PAGE_NODES_H_
