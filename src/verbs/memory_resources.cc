#include "verbs/memory_resources.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace xfer::verbs {

Result<CompletionQueueHandle> CreateCompletionQueue(ibv_context* context, int entries) {
  CompletionQueueHandle cq(ibv_create_cq(context, entries, nullptr, nullptr, 0));
  if (!cq) {
    return ResourceExhausted(
        fmt::format("ibv_create_cq({} entries): {}", entries, std::strerror(errno)));
  }
  return cq;
}

Result<MemoryRegionHandle> RegisterMemoryRegion(ibv_pd* pd, void* address, size_t length,
                                                int access) {
  if (address == nullptr || length == 0) {
    return InvalidArgument("memory registration needs a non-empty range");
  }
  MemoryRegionHandle mr(ibv_reg_mr(pd, address, length, static_cast<unsigned>(access)));
  if (!mr) {
    const int error = errno;
    const char* hint = (error == ENOMEM || error == EAGAIN)
                           ? " (is RLIMIT_MEMLOCK large enough? see ulimit -l)"
                           : "";
    return ResourceExhausted(fmt::format("ibv_reg_mr({} bytes at {}): {}{}", length,
                                         address, std::strerror(error), hint));
  }
  return mr;
}

}  // namespace xfer::verbs
