#include "bench/page_nodes.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

namespace xfer::bench {

Result<PageNodes> NodesOfPages(const void* address, size_t length, size_t page_size) {
  PageNodes out;
  if (length == 0 || page_size == 0) return out;
  const auto start = reinterpret_cast<uintptr_t>(address) / page_size * page_size;
  const uint64_t total = (reinterpret_cast<uintptr_t>(address) + length - start + page_size - 1) /
                         page_size;
  const uint64_t step = total > kMostPagesAsked ? total / kMostPagesAsked : 1;
  std::vector<void*> pages;
  for (uint64_t i = 0; i < total && pages.size() < kMostPagesAsked; i += step) {
    pages.push_back(reinterpret_cast<void*>(start + i * page_size));
  }
  std::vector<int> status(pages.size(), 0);
  // nodes == NULL: report, move nothing.
  if (syscall(SYS_move_pages, 0, pages.size(), pages.data(), nullptr, status.data(), 0) != 0) {
    return IoError(fmt::format("move_pages: {}", std::strerror(errno)));
  }
  out.asked = pages.size();
  for (const int node : status) {
    if (node >= 0) {
      ++out.pages[node];
    } else {
      ++out.unplaced;  // -ENOENT: not backed yet; other errors alike
    }
  }
  return out;
}

}  // namespace xfer::bench
