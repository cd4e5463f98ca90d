// Completion queues and memory registrations: the two verbs objects every
// user creates with the same error handling.
#ifndef XFER_VERBS_MEMORY_RESOURCES_H_
#define XFER_VERBS_MEMORY_RESOURCES_H_

#include <cstddef>
#include <cstdint>

#include "verbs/ib_handles.h"
#include "xfer/status.h"

namespace xfer::verbs {

// A CQ of at least `entries` entries with no completion channel (the
// benchmarks and the transport poll).
// Errors: kResourceExhausted (ibv_create_cq, with errno and the size).
Result<CompletionQueueHandle> CreateCompletionQueue(ibv_context* context, int entries);

// Registers [address, address + length) with `access` (IBV_ACCESS_*).
// Errors: kInvalidArgument (null or empty range); kResourceExhausted
// (ibv_reg_mr; ENOMEM/EAGAIN usually means RLIMIT_MEMLOCK, and the message
// says so).
Result<MemoryRegionHandle> RegisterMemoryRegion(ibv_pd* pd, void* address, size_t length,
                                                int access);

// Registers `length` bytes of the dma-buf `fd` from `offset` (another
// device's memory: a GPU's, exported by its driver), addressed in work
// requests and by the peer as `iova` onwards (ibv_reg_dmabuf_mr). Errors:
// kInvalidArgument (bad fd, empty range); kNotSupported when the RDMA
// device or its driver does not take dma-buf registrations (EOPNOTSUPP,
// EPROTONOSUPPORT: Soft-RoCE never does; a NIC needs ODP-capable
// dma-buf support in its kernel driver); kResourceExhausted otherwise.
Result<MemoryRegionHandle> RegisterDmaBufRegion(ibv_pd* pd, int fd, uint64_t offset,
                                                size_t length, uint64_t iova, int access);

}  // namespace xfer::verbs

#endif  // XFER_VERBS_MEMORY_RESOURCES_H_
