// DeviceRuntime for a build without the CUDA headers: device memory is
// unavailable and every pointer is host memory.
#include "cuda/device_runtime.h"

namespace xfer::cuda {
namespace {

Status NotBuilt() {
  return NotSupported(
      "this build of libxfer has no CUDA support (configure it where the CUDA toolkit's "
      "headers are installed)");
}

class NoCudaRuntime final : public DeviceRuntime {
 public:
  Status Available() override { return NotBuilt(); }
  Result<std::vector<DeviceInfo>> Devices() override { return NotBuilt(); }
  Result<uint64_t> Allocate(int, size_t) override { return NotBuilt(); }
  Status Free(uint64_t) override { return NotBuilt(); }
  Result<PointerInfo> Classify(const void*, size_t) override { return PointerInfo{}; }
  Status Copy(void*, const void*, size_t) override { return NotBuilt(); }
};

}  // namespace

std::unique_ptr<DeviceRuntime> DeviceRuntime::Create(std::string) {
  return std::make_unique<NoCudaRuntime>();
}

}  // namespace xfer::cuda
