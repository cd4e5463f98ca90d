// Copy streams per device, created on first use: what a transport keeps so
// that each device's copies run on streams of the transport's own. Lanes
// are independent streams of one device (a connection's streams spread
// their copies over them; the copy engines run them side by side).
#ifndef XFER_CUDA_COPY_STREAMS_H_
#define XFER_CUDA_COPY_STREAMS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "cuda/device_runtime.h"

namespace xfer::cuda {

// Not thread-safe: the owner serialises its calls (as CopyStream requires
// of its users anyway). `devices` must outlive this object.
class CopyStreams {
 public:
  explicit CopyStreams(DeviceRuntime& devices) : devices_(devices) {}

  // Lane `lane`'s stream of device `ordinal`, created on the first call
  // for it and owned by this object. Errors: kInternal for a negative
  // ordinal; DeviceRuntime::CreateCopyStream's.
  Result<CopyStream*> For(int ordinal, uint32_t lane = 0);

  // Destroys every stream; the caller has no copy in flight on any.
  void Clear() { streams_.clear(); }

 private:
  DeviceRuntime& devices_;
  std::vector<std::vector<std::unique_ptr<CopyStream>>> streams_;  // by ordinal, then lane
};

}  // namespace xfer::cuda

#endif  // XFER_CUDA_COPY_STREAMS_H_
