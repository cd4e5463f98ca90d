// Faulting in a fresh mapping's pages before it is registered: what makes
// registering a large region slow (the kernel zeroes every page on first
// touch), spread over several threads.
#ifndef XFER_CORE_PAGE_POPULATION_H_
#define XFER_CORE_PAGE_POPULATION_H_

#include <cstddef>

#include "xfer/status.h"

namespace xfer::core {

// Regions at least this long are populated by several threads; shorter
// ones by the mmap call itself (MAP_POPULATE), where a thread's start
// would cost more than it saves.
inline constexpr size_t kParallelPopulateBytes = size_t{64} << 20;

// The threads PopulateInParallel uses for `length` bytes: one per 64 MiB,
// at most one per CPU and at most 8. 1 means: not worth it.
unsigned PopulationThreads(size_t length);

// Faults in every page of [address, address + length), a writable shared
// mapping, with `threads` threads each taking a contiguous share (whole
// `page_size` pages), by MADV_POPULATE_WRITE (Linux 5.14), or by writing
// to each page where the kernel lacks it (the mapping is fresh and
// zero-filled, so the write changes nothing). Returns when all are done.
// Errors: kResourceExhausted when the kernel cannot back the pages (out of
// memory), naming the first chunk that failed.
Status PopulateInParallel(void* address, size_t length, size_t page_size, unsigned threads);

}  // namespace xfer::core

#endif  // XFER_CORE_PAGE_POPULATION_H_
