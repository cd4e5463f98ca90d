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
  Result<std::unique_ptr<CopyStream>> CreateCopyStream(int) override { return NotBuilt(); }
  Result<void*> AllocateHost(size_t) override { return NotBuilt(); }
  Status FreeHost(void*) override { return NotBuilt(); }
  Status PinHost(void*, size_t) override { return NotBuilt(); }
  Status UnpinHost(void*) override { return NotBuilt(); }
  Result<DmaBuf> ExportDmaBuf(const void*, size_t) override { return NotBuilt(); }
  Result<IpcHandle> ExportIpc(uint64_t) override { return NotBuilt(); }
  Result<uint64_t> OpenIpc(const IpcHandle&, int) override { return NotBuilt(); }
  Status CloseIpc(uint64_t, int) override { return NotBuilt(); }
};

}  // namespace

bool DeviceRuntime::Built() { return false; }

std::string DeviceRuntime::BuildDescription() {
  return "not built (configured without the CUDA toolkit's headers, or with -DXFER_CUDA=OFF)";
}

std::unique_ptr<DeviceRuntime> DeviceRuntime::Create(std::string) {
  return std::make_unique<NoCudaRuntime>();
}

}  // namespace xfer::cuda
