// One copy stream per device, created on first use: what a transport keeps
// so that each device's copies run on a stream of the transport's own.
#ifndef XFER_CUDA_COPY_STREAMS_H_
#define XFER_CUDA_COPY_STREAMS_H_

#include <memory>
#include <vector>

#include "cuda/device_runtime.h"

namespace xfer::cuda {

// Not thread-safe: the owner serialises its calls (as CopyStream requires
// of its users anyway). `devices` must outlive this object.
class CopyStreams {
 public:
  explicit CopyStreams(DeviceRuntime& devices) : devices_(devices) {}

  // The stream of device `ordinal`, created on the first call for it and
  // owned by this object. Errors: kInternal for a negative ordinal;
  // DeviceRuntime::CreateCopyStream's.
  Result<CopyStream*> For(int ordinal);

  // Destroys every stream; the caller has no copy in flight on any.
  void Clear() { streams_.clear(); }

 private:
  DeviceRuntime& devices_;
  std::vector<std::unique_ptr<CopyStream>> streams_;  // by ordinal
};

}  // namespace xfer::cuda

#endif  // XFER_CUDA_COPY_STREAMS_H_
