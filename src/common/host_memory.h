// Whether this host can back an allocation of host memory, asked before the
// allocation is made. A shared (memfd) or populated mapping larger than
// the memory the host can give is not refused by mmap: the kernel overcommits,
// then faults pages in until its OOM killer ends this process or another
// one. Every host allocation sized by a user (AllocateMemory, perftest's
// test buffers) asks first, so such a request fails at once with
// kResourceExhausted naming the size and what the host has.
#ifndef XFER_COMMON_HOST_MEMORY_H_
#define XFER_COMMON_HOST_MEMORY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "xfer/status.h"

namespace xfer {

// What the kernel says this process may still take, in bytes.
struct HostMemory {
  // MemAvailable of /proc/meminfo: free memory plus what the kernel can
  // reclaim without swapping. nullopt where it cannot be read.
  std::optional<uint64_t> available;
  // The memory cgroup's limit less its usage (v2 memory.max - memory.current,
  // v1 limit_in_bytes - usage_in_bytes); nullopt where no limit is set.
  std::optional<uint64_t> cgroup_left;
};

// Reads /proc/meminfo and this process's memory cgroup.
HostMemory ReadHostMemory();

// MemAvailable from the text of /proc/meminfo, in bytes; nullopt when the
// line is missing or malformed.
std::optional<uint64_t> ParseMemAvailable(std::string_view meminfo);

// OK when `bytes` fit in what `memory` says is left. Errors:
// kResourceExhausted "cannot allocate 1099511627776 bytes (1024.0 GiB) of
// <what>: this host has 22.9 GiB available (MemAvailable)", or naming the
// cgroup's limit when that is the smaller.
Status CheckHostCanBack(uint64_t bytes, std::string_view what, const HostMemory& memory);

}  // namespace xfer

#endif  // XFER_COMMON_HOST_MEMORY_H_
