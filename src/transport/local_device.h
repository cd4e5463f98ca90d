// Which CUDA device a local buffer lives on, for transports that must
// treat device memory differently from host memory on their post paths.
#ifndef XFER_TRANSPORT_LOCAL_DEVICE_H_
#define XFER_TRANSPORT_LOCAL_DEVICE_H_

#include <cstdint>

#include "cuda/device_runtime.h"
#include "transport/local_memory.h"

namespace xfer::transport {

// The CUDA device of registered memory [address, address + length), or -1
// for host memory and for a range the engine does not hold. Asks the
// registry first (a lookup) and the driver only for kCuda memory; callers
// on a host without a usable GPU skip the call altogether.
inline int LocalDeviceOf(const LocalMemory& local, cuda::DeviceRuntime& devices,
                         const void* address, uint64_t length) {
  auto kind = local.Locate(reinterpret_cast<uint64_t>(address), length, Access::kNone);
  if (!kind.ok() || *kind != MemoryKind::kCuda) return -1;
  auto info = devices.Classify(address, length);
  return info.ok() && info->device ? info->ordinal : -1;
}

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_LOCAL_DEVICE_H_
