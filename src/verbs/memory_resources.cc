#include "verbs/memory_resources.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <string>

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

Result<MemoryRegionHandle> RegisterDmaBufRegion(ibv_pd* pd, int fd, uint64_t offset,
                                                size_t length, uint64_t iova, int access) {
  if (fd < 0 || length == 0) {
    return InvalidArgument("a dma-buf registration needs a descriptor and a non-empty range");
  }
  MemoryRegionHandle mr(ibv_reg_dmabuf_mr(pd, offset, length, iova, fd, access));
  if (mr) return mr;
  const int error = errno;
  const std::string what = fmt::format("ibv_reg_dmabuf_mr({} bytes at offset {} of dma-buf fd {})",
                                       length, offset, fd);
  if (error == EOPNOTSUPP || error == EPROTONOSUPPORT || error == ENOSYS) {
    return NotSupported(fmt::format(
        "{}: the RDMA device does not take dma-buf memory ({}); Soft-RoCE never does, a NIC "
        "needs dma-buf support in its kernel driver (mlx5 on Linux 5.12+)",
        what, std::strerror(error)));
  }
  if (error == EBADF || error == EINVAL) {
    return InvalidArgument(fmt::format("{}: {}", what, std::strerror(error)));
  }
  return ResourceExhausted(fmt::format("{}: {}", what, std::strerror(error)));
}

}  // namespace xfer::verbs
