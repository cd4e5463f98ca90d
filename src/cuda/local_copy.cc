// The public device API (include/xfer/device.h) over DeviceRuntime.
#include <fmt/format.h>

#include <memory>

#include "cuda/device_runtime.h"
#include "xfer/device.h"

namespace xfer {
namespace {

// Frees what a measurement allocated, whatever path it leaves by.
class Buffers {
 public:
  explicit Buffers(cuda::DeviceRuntime& runtime) : runtime_(runtime) {}
  ~Buffers() {
    for (uint64_t device : device_) (void)runtime_.Free(device);
    for (void* host : host_) (void)runtime_.FreeHost(host);
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;

  Result<void*> Device(int ordinal, uint64_t length) {
    auto address = runtime_.Allocate(ordinal, length);
    if (!address.ok()) return address.status();
    device_.push_back(*address);
    return reinterpret_cast<void*>(*address);
  }
  Result<void*> Host(uint64_t length) {
    auto address = runtime_.AllocateHost(length);
    if (!address.ok()) return address.status();
    host_.push_back(*address);
    return *address;
  }

 private:
  cuda::DeviceRuntime& runtime_;
  std::vector<uint64_t> device_;
  std::vector<void*> host_;
};

}  // namespace

std::string CudaSupport() { return cuda::DeviceRuntime::BuildDescription(); }

Result<std::vector<CudaDevice>> ListCudaDevices() {
  auto runtime = cuda::DeviceRuntime::Create();
  auto devices = runtime->Devices();
  if (!devices.ok()) return devices.status();
  std::vector<CudaDevice> list;
  for (const cuda::DeviceInfo& info : *devices) {
    list.push_back({info.ordinal, info.name, info.pci_bus_id, info.memory_bytes});
  }
  return list;
}

const char* LocalCopyName(LocalCopy copy) {
  switch (copy) {
    case LocalCopy::kHostToDevice:
      return "H2D";
    case LocalCopy::kDeviceToHost:
      return "D2H";
    case LocalCopy::kDeviceToDevice:
      return "D2D";
  }
  return "?";
}

Result<double> TimeLocalCopies(LocalCopy copy, int device, uint64_t block, uint32_t copies) {
  if (block == 0 || copies == 0) {
    return InvalidArgument("TimeLocalCopies: the block and the number of copies must be positive");
  }
  auto runtime = cuda::DeviceRuntime::Create();
  XFER_RETURN_IF_ERROR(runtime->Available());
  // Declared after the runtime: freed before it goes.
  Buffers buffers(*runtime);
  if (block > UINT64_MAX / copies) return InvalidArgument("TimeLocalCopies: too many bytes");
  const uint64_t total = block * copies;
  auto source =
      copy == LocalCopy::kHostToDevice ? buffers.Host(total) : buffers.Device(device, total);
  if (!source.ok()) return source.status();
  auto destination =
      copy == LocalCopy::kDeviceToHost ? buffers.Host(total) : buffers.Device(device, total);
  if (!destination.ok()) return destination.status();
  auto stream = runtime->CreateCopyStream(device);
  if (!stream.ok()) return stream.status();
  return (*stream)->TimeCopies(*destination, *source, block, static_cast<int>(copies));
}

}  // namespace xfer
