// DeviceRuntime over the real driver: the build has the CUDA headers.
#include <unistd.h>

#include <fmt/format.h>

#include <cstring>
#include <mutex>
#include <optional>
#include <vector>

#include "cuda/cuda_driver.h"
#include "cuda/device_runtime.h"

namespace xfer::cuda {
namespace {

CUdeviceptr DevicePointer(const void* address) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(address));
}

// REQUIRES: the driver outlives the stream (the runtime that made it does).
class DriverCopyStream final : public CopyStream {
 public:
  DriverCopyStream(Driver& driver, int ordinal, CUstream stream)
      : driver_(driver), ordinal_(ordinal), stream_(stream) {}
  ~DriverCopyStream() override {
    if (!driver_.UseDevice(ordinal_).ok()) return;
    if (start_ != nullptr) (void)driver_.api().event_destroy(start_);
    if (end_ != nullptr) (void)driver_.api().event_destroy(end_);
    for (CUevent mark : marks_) (void)driver_.api().event_destroy(mark);
    (void)driver_.api().stream_destroy(stream_);
  }
  DriverCopyStream(const DriverCopyStream&) = delete;
  DriverCopyStream& operator=(const DriverCopyStream&) = delete;

  Status Copy(void* destination, const void* source, size_t length) override {
    XFER_RETURN_IF_ERROR(Start(destination, source, length));
    return Finish();
  }

  Status Start(void* destination, const void* source, size_t length) override {
    XFER_RETURN_IF_ERROR(driver_.UseDevice(ordinal_));
    return Enqueue(destination, source, length);
  }

  Status Finish() override {
    XFER_RETURN_IF_ERROR(driver_.UseDevice(ordinal_));
    return driver_.Check(driver_.api().stream_synchronize(stream_), "cuStreamSynchronize");
  }

  Result<uint32_t> Mark() override {
    XFER_RETURN_IF_ERROR(driver_.UseDevice(ordinal_));
    std::lock_guard lock(marks_mu_);
    if (free_marks_.empty()) {
      CUevent event = nullptr;
      // No timing: recording and waiting cost less without it.
      XFER_RETURN_IF_ERROR(driver_.Check(
          driver_.api().event_create(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate"));
      marks_.push_back(event);
      free_marks_.push_back(static_cast<uint32_t>(marks_.size() - 1));
    }
    const uint32_t mark = free_marks_.back();
    Status recorded =
        driver_.Check(driver_.api().event_record(marks_[mark], stream_), "cuEventRecord");
    if (!recorded.ok()) return recorded;
    free_marks_.pop_back();
    return mark;
  }

  Status WaitMark(uint32_t mark) override {
    XFER_RETURN_IF_ERROR(driver_.UseDevice(ordinal_));
    CUevent event = nullptr;
    {
      std::lock_guard lock(marks_mu_);
      if (mark >= marks_.size()) return Internal("WaitMark: no such mark");
      event = marks_[mark];
    }
    Status done = driver_.Check(driver_.api().event_synchronize(event), "cuEventSynchronize");
    std::lock_guard lock(marks_mu_);
    free_marks_.push_back(mark);
    return done;
  }

  Result<double> TimeCopies(void* destination, const void* source, size_t length,
                            int blocks) override {
    if (blocks <= 0) return InvalidArgument("TimeCopies: blocks must be positive");
    auto* to = static_cast<uint8_t*>(destination);
    const auto* from = static_cast<const uint8_t*>(source);
    const size_t total = length * static_cast<size_t>(blocks);
    XFER_RETURN_IF_ERROR(Copy(destination, source, total));  // untimed: first-touch costs
    const DriverApi& api = driver_.api();
    if (start_ == nullptr) {
      XFER_RETURN_IF_ERROR(driver_.Check(api.event_create(&start_, CU_EVENT_DEFAULT), "cuEventCreate"));
      XFER_RETURN_IF_ERROR(driver_.Check(api.event_create(&end_, CU_EVENT_DEFAULT), "cuEventCreate"));
    }
    XFER_RETURN_IF_ERROR(driver_.Check(api.event_record(start_, stream_), "cuEventRecord"));
    for (size_t offset = 0; offset < total; offset += length) {
      XFER_RETURN_IF_ERROR(Enqueue(to + offset, from + offset, length));
    }
    XFER_RETURN_IF_ERROR(driver_.Check(api.event_record(end_, stream_), "cuEventRecord"));
    XFER_RETURN_IF_ERROR(driver_.Check(api.event_synchronize(end_), "cuEventSynchronize"));
    float milliseconds = 0;
    XFER_RETURN_IF_ERROR(driver_.Check(api.event_elapsed_time(&milliseconds, start_, end_),
                                       "cuEventElapsedTime"));
    return static_cast<double>(milliseconds) / 1e3;
  }

 private:
  Status Enqueue(void* destination, const void* source, size_t length) {
    return driver_.Check(driver_.api().memcpy_async(DevicePointer(destination),
                                                    DevicePointer(source), length, stream_),
                         "cuMemcpyAsync");
  }

  Driver& driver_;
  const int ordinal_;
  CUstream stream_;
  CUevent start_ = nullptr;
  CUevent end_ = nullptr;
  std::mutex marks_mu_;
  std::vector<CUevent> marks_;         // GUARDED_BY(marks_mu_); by mark
  std::vector<uint32_t> free_marks_;   // GUARDED_BY(marks_mu_)
};

class DriverRuntime final : public DeviceRuntime {
 public:
  explicit DriverRuntime(std::string library) : library_(std::move(library)) {}

  Status Available() override { return Get().status(); }

  Result<std::vector<DeviceInfo>> Devices() override {
    auto driver = Get();
    if (!driver.ok()) return driver.status();
    const DriverApi& api = (*driver)->api();
    std::vector<DeviceInfo> devices;
    for (int ordinal = 0; ordinal < (*driver)->device_count(); ++ordinal) {
      CUdevice device = 0;
      XFER_RETURN_IF_ERROR((*driver)->Check(api.device_get(&device, ordinal), "cuDeviceGet"));
      char name[256] = {};
      char bus_id[32] = {};
      size_t bytes = 0;
      XFER_RETURN_IF_ERROR(
          (*driver)->Check(api.device_get_name(name, sizeof(name), device), "cuDeviceGetName"));
      XFER_RETURN_IF_ERROR((*driver)->Check(
          api.device_get_pci_bus_id(bus_id, sizeof(bus_id), device), "cuDeviceGetPCIBusId"));
      XFER_RETURN_IF_ERROR(
          (*driver)->Check(api.device_total_mem(&bytes, device), "cuDeviceTotalMem"));
      devices.push_back({ordinal, name, bus_id, bytes});
    }
    return devices;
  }

  Result<uint64_t> Allocate(int ordinal, size_t length) override {
    if (length == 0) return InvalidArgument("zero-length device allocation");
    auto driver = Get();
    if (!driver.ok()) return driver.status();
    Driver& d = **driver;
    XFER_RETURN_IF_ERROR(d.UseDevice(ordinal));
    CUdeviceptr address = 0;
    const CUresult allocated = d.api().mem_alloc(&address, length);
    if (allocated == CUDA_ERROR_OUT_OF_MEMORY) {
      return ResourceExhausted(
          fmt::format("CUDA device {} has no {} bytes free (cuMemAlloc)", ordinal, length));
    }
    XFER_RETURN_IF_ERROR(d.Check(allocated, "cuMemAlloc"));
    Status zeroed = d.Check(d.api().memset_d8(address, 0, length), "cuMemsetD8");
    if (zeroed.ok()) zeroed = d.Check(d.api().ctx_synchronize(), "cuCtxSynchronize");
    if (!zeroed.ok()) {
      (void)d.api().mem_free(address);
      return zeroed;
    }
    return static_cast<uint64_t>(address);
  }

  Status Free(uint64_t address) override {
    auto driver = Get();
    if (!driver.ok()) return driver.status();
    auto info = Classify(reinterpret_cast<const void*>(address), 1);
    if (!info.ok()) return info.status();
    if (!info->device) return InvalidArgument("not CUDA device memory");
    XFER_RETURN_IF_ERROR((*driver)->UseDevice(info->ordinal));
    return (*driver)->Check((*driver)->api().mem_free(static_cast<CUdeviceptr>(address)),
                            "cuMemFree");
  }

  Result<PointerInfo> Classify(const void* address, size_t length) override {
    auto driver = Get();
    if (!driver.ok()) return PointerInfo{};  // no driver: no device pointers either
    Driver& d = **driver;
    // The plural query answers "not CUDA memory" with zeros, where the
    // singular one fails; MEMORY_TYPE 0 therefore means host.
    unsigned int memory_type = 0;
    int ordinal = -1;
    CUdeviceptr base = 0;
    size_t size = 0;
    unsigned int managed = 0;
    CUpointer_attribute attributes[] = {
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
        CU_POINTER_ATTRIBUTE_IS_MANAGED};
    void* values[] = {&memory_type, &ordinal, &base, &size, &managed};
    CUresult queried =
        d.api().pointer_get_attributes(5, attributes, values, DevicePointer(address));
    if (queried == CUDA_ERROR_INVALID_CONTEXT) {
      // A thread that never touched CUDA has no current context; the
      // query should not need one, but where a driver insists, device 0's
      // primary context answers for every device under unified addressing.
      XFER_RETURN_IF_ERROR(d.UseDevice(0));
      queried = d.api().pointer_get_attributes(5, attributes, values, DevicePointer(address));
    }
    XFER_RETURN_IF_ERROR(d.Check(queried, "cuPointerGetAttributes"));
    if (managed != 0) {
      return InvalidArgument(
          "CUDA managed memory is not supported: it migrates between host and device");
    }
    PointerInfo info;
    info.pinned = memory_type == CU_MEMORYTYPE_HOST;  // pageable host memory answers 0
    if (memory_type != CU_MEMORYTYPE_DEVICE) return info;
    info.device = true;
    info.ordinal = ordinal;
    info.base = static_cast<uint64_t>(base);
    info.size = size;
    const uint64_t start = reinterpret_cast<uintptr_t>(address);
    if (start < info.base || length > info.size || start - info.base > info.size - length) {
      return InvalidArgument(fmt::format(
          "[{:#x}, +{}) leaves its CUDA allocation [{:#x}, +{})", start, length, info.base,
          info.size));
    }
    CUmemGenericAllocationHandle handle = 0;
    if (d.api().mem_retain_allocation_handle(&handle, const_cast<void*>(address)) ==
        CUDA_SUCCESS) {
      info.vmm = true;
      (void)d.api().mem_release(handle);  // the retain took a reference
    }
    return info;
  }

  Status Copy(void* destination, const void* source, size_t length) override {
    auto driver = Get();
    if (!driver.ok()) return driver.status();
    std::optional<int> ordinal;
    for (const void* side : {static_cast<const void*>(destination), source}) {
      auto info = Classify(side, length);
      if (!info.ok()) return info.status();
      if (info->device && !ordinal) ordinal = info->ordinal;
    }
    if (!ordinal) {
      std::memcpy(destination, source, length);
      return Status::Ok();
    }
    Driver& d = **driver;
    XFER_RETURN_IF_ERROR(d.UseDevice(*ordinal));
    XFER_RETURN_IF_ERROR(
        d.Check(d.api().memcpy(DevicePointer(destination), DevicePointer(source), length),
                "cuMemcpy"));
    return d.Check(d.api().ctx_synchronize(), "cuCtxSynchronize");
  }

  Result<std::unique_ptr<CopyStream>> CreateCopyStream(int ordinal) override {
    auto driver = Get();
    if (!driver.ok()) return driver.status();
    XFER_RETURN_IF_ERROR((*driver)->UseDevice(ordinal));
    CUstream stream = nullptr;
    XFER_RETURN_IF_ERROR((*driver)->Check(
        (*driver)->api().stream_create(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
    return std::unique_ptr<CopyStream>(
        std::make_unique<DriverCopyStream>(**driver, ordinal, stream));
  }

  Result<void*> AllocateHost(size_t length) override {
    if (length == 0) return InvalidArgument("zero-length pinned allocation");
    auto driver = Get();
    if (!driver.ok()) return driver.status();
    XFER_RETURN_IF_ERROR((*driver)->UseDevice(0));
    void* address = nullptr;
    // PORTABLE: pinned for every context, whichever device copies from it.
    XFER_RETURN_IF_ERROR((*driver)->Check(
        (*driver)->api().mem_host_alloc(&address, length, CU_MEMHOSTALLOC_PORTABLE),
        "cuMemHostAlloc", StatusCode::kResourceExhausted));
    return address;
  }

  Status FreeHost(void* address) override {
    auto driver = Get();
    if (!driver.ok()) return driver.status();
    XFER_RETURN_IF_ERROR((*driver)->UseDevice(0));
    return (*driver)->Check((*driver)->api().mem_free_host(address), "cuMemFreeHost");
  }

  Status PinHost(void* address, size_t length) override {
    if (length == 0) return InvalidArgument("zero-length pinning");
    auto driver = Get();
    if (!driver.ok()) return driver.status();
    XFER_RETURN_IF_ERROR((*driver)->UseDevice(0));
    // PORTABLE: pinned for every context, whichever device copies with it.
    return (*driver)->Check(
        (*driver)->api().mem_host_register(address, length, CU_MEMHOSTREGISTER_PORTABLE),
        "cuMemHostRegister", StatusCode::kResourceExhausted);
  }

  Status UnpinHost(void* address) override {
    auto driver = Get();
    if (!driver.ok()) return driver.status();
    XFER_RETURN_IF_ERROR((*driver)->UseDevice(0));
    return (*driver)->Check((*driver)->api().mem_host_unregister(address), "cuMemHostUnregister");
  }

  Result<DmaBuf> ExportDmaBuf(const void* address, size_t length) override {
    auto driver = Get();
    if (!driver.ok()) return driver.status();
    auto info = Classify(address, length);
    if (!info.ok()) return info.status();
    if (!info->device) return InvalidArgument("a dma-buf exports device memory only");
    // The driver exports whole host pages.
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    const uint64_t start = reinterpret_cast<uintptr_t>(address);
    const uint64_t first = start / page * page;
    const uint64_t end = (start + length + page - 1) / page * page;
    if (first < info->base || end > info->base + info->size) {
      return InvalidArgument(fmt::format(
          "the pages around [{:#x}, +{}) leave its CUDA allocation [{:#x}, +{}): a dma-buf "
          "exports whole pages",
          start, length, info->base, info->size));
    }
    XFER_RETURN_IF_ERROR((*driver)->UseDevice(info->ordinal));
    int fd = -1;
    const CUresult exported = (*driver)->api().mem_get_handle_for_address_range(
        &fd, static_cast<CUdeviceptr>(first), end - first, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
    if (exported == CUDA_ERROR_NOT_SUPPORTED || exported == CUDA_ERROR_INVALID_VALUE) {
      return NotSupported(fmt::format(
          "CUDA device {} cannot export its memory as a dma-buf ({}): the driver needs "
          "CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED (NVIDIA's open kernel modules, Linux 5.12+)",
          info->ordinal, (*driver)->Check(exported, "cuMemGetHandleForAddressRange").message()));
    }
    XFER_RETURN_IF_ERROR((*driver)->Check(exported, "cuMemGetHandleForAddressRange"));
    return DmaBuf(UniqueFd(fd), start - first);
  }

  Result<IpcHandle> ExportIpc(uint64_t allocation_base) override {
    auto driver = Get();
    if (!driver.ok()) return driver.status();
    auto info = Classify(reinterpret_cast<const void*>(allocation_base), 1);
    if (!info.ok()) return info.status();
    if (!info->device || info->vmm || info->base != allocation_base) {
      return InvalidArgument(fmt::format(
          "{:#x} does not start a cuMemAlloc allocation (legacy IPC shares only those)",
          allocation_base));
    }
    XFER_RETURN_IF_ERROR((*driver)->UseDevice(info->ordinal));
    CUipcMemHandle handle{};
    XFER_RETURN_IF_ERROR((*driver)->Check(
        (*driver)->api().ipc_get_mem_handle(&handle, static_cast<CUdeviceptr>(allocation_base)),
        "cuIpcGetMemHandle", StatusCode::kInvalidArgument));
    IpcHandle bytes{};
    static_assert(sizeof(handle.reserved) == std::tuple_size_v<IpcHandle>);
    std::memcpy(bytes.data(), handle.reserved, bytes.size());
    return bytes;
  }

  Result<uint64_t> OpenIpc(const IpcHandle& bytes, int ordinal) override {
    auto driver = Get();
    if (!driver.ok()) return driver.status();
    XFER_RETURN_IF_ERROR((*driver)->UseDevice(ordinal));
    CUipcMemHandle handle{};
    std::memcpy(handle.reserved, bytes.data(), bytes.size());
    CUdeviceptr address = 0;
    XFER_RETURN_IF_ERROR((*driver)->Check(
        (*driver)->api().ipc_open_mem_handle(&address, handle,
                                             CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
        "cuIpcOpenMemHandle", StatusCode::kInvalidArgument));
    return static_cast<uint64_t>(address);
  }

  Status CloseIpc(uint64_t address, int ordinal) override {
    auto driver = Get();
    if (!driver.ok()) return driver.status();
    // The context must be current for the close too (UCX saw "invalid
    // device context" warnings without it).
    XFER_RETURN_IF_ERROR((*driver)->UseDevice(ordinal));
    return (*driver)->Check(
        (*driver)->api().ipc_close_mem_handle(static_cast<CUdeviceptr>(address)),
        "cuIpcCloseMemHandle");
  }

 private:
  Result<Driver*> Get() {
    std::lock_guard lock(mu_);
    if (!loaded_) {
      auto driver = Driver::Load(library_);
      if (driver.ok()) {
        driver_ = std::move(*driver);
      } else {
        why_ = driver.status();
      }
      loaded_ = true;
    }
    if (!driver_) return why_;
    return driver_.get();
  }

  const std::string library_;
  std::mutex mu_;
  bool loaded_ = false;             // GUARDED_BY(mu_)
  std::unique_ptr<Driver> driver_;  // GUARDED_BY(mu_)
  Status why_;                      // GUARDED_BY(mu_); the load's error
};

}  // namespace

bool DeviceRuntime::Built() { return true; }

std::string DeviceRuntime::BuildDescription() {
  return fmt::format("built with the headers of CUDA {}.{}; the driver is loaded at run time",
                     CUDA_VERSION / 1000, (CUDA_VERSION % 1000) / 10);
}

std::unique_ptr<DeviceRuntime> DeviceRuntime::Create(std::string library) {
  return std::make_unique<DriverRuntime>(std::move(library));
}

}  // namespace xfer::cuda
