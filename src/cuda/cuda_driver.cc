#include "cuda/cuda_driver.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <bit>

namespace xfer::cuda {
namespace {

// The two entry points taken with dlsym: their ABI has not changed since
// CUDA 2.0, and they are what tells a stub or an old driver apart before
// anything else is resolved.
using DriverGetVersionFn = PFN_cuDriverGetVersion_v2020;
using InitFn = PFN_cuInit_v2000;

template <typename Fn>
Fn Symbol(void* library, const char* name) {
  void* address = ::dlsym(library, name);
  return address == nullptr ? nullptr : std::bit_cast<Fn>(address);
}

// Closes a library that turned out to be unusable; one that loads is kept.
struct LibraryGuard {
  void* handle;
  ~LibraryGuard() {
    if (handle != nullptr) ::dlclose(handle);
  }
};

std::string VersionText(int version) {
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

class Resolver {
 public:
  Resolver(PFN_cuGetProcAddress_v12000 get, int driver_version)
      : get_(get), driver_version_(driver_version) {}

  // `out` at `newer` where the driver has that version, else at `older`.
  template <typename Fn>
  void Either(const char* symbol, int newer, int older, Fn& out) {
    if (driver_version_ >= newer) {
      void* address = nullptr;
      CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
      if (get_(symbol, &address, newer, CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS &&
          address != nullptr) {
        out = std::bit_cast<Fn>(address);
        return;
      }
    }
    (*this)(symbol, older, out);
  }

  template <typename Fn>
  void operator()(const char* symbol, int abi_version, Fn& out) {
    void* address = nullptr;
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    const CUresult result =
        get_(symbol, &address, abi_version, CU_GET_PROC_ADDRESS_DEFAULT, &found);
    if (result == CUDA_SUCCESS && address != nullptr) {
      out = std::bit_cast<Fn>(address);
    } else if (status_.ok()) {
      status_ = FailedPrecondition(fmt::format(
          "the NVIDIA driver (CUDA {}) has no {} at ABI {} ({})", VersionText(driver_version_),
          symbol, abi_version,
          found == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT ? "the driver is too old"
                                                              : "symbol not found"));
    }
  }

  const Status& status() const { return status_; }

 private:
  PFN_cuGetProcAddress_v12000 get_;
  int driver_version_;
  Status status_;
};

void ResolveAll(Resolver& resolve, DriverApi& api) {
  resolve("cuGetErrorName", 6000, api.get_error_name);
  resolve("cuDeviceGetCount", 2000, api.device_get_count);
  resolve("cuDeviceGet", 2000, api.device_get);
  resolve("cuDeviceGetName", 2000, api.device_get_name);
  resolve("cuDeviceTotalMem", 3020, api.device_total_mem);
  resolve("cuDeviceGetPCIBusId", 4010, api.device_get_pci_bus_id);
  resolve("cuDevicePrimaryCtxRetain", 7000, api.primary_ctx_retain);
  resolve("cuDevicePrimaryCtxRelease", 11000, api.primary_ctx_release);
  resolve("cuCtxSetCurrent", 4000, api.ctx_set_current);
  resolve("cuCtxSynchronize", 2000, api.ctx_synchronize);
  resolve("cuMemAlloc", 3020, api.mem_alloc);
  resolve("cuMemFree", 3020, api.mem_free);
  resolve("cuMemsetD8", 3020, api.memset_d8);
  resolve("cuMemcpy", 4000, api.memcpy);
  resolve("cuPointerGetAttributes", 7000, api.pointer_get_attributes);
  resolve("cuMemRetainAllocationHandle", 11000, api.mem_retain_allocation_handle);
  resolve("cuMemRelease", 10020, api.mem_release);
  resolve("cuMemHostAlloc", 2020, api.mem_host_alloc);
  resolve("cuMemFreeHost", 2000, api.mem_free_host);
  resolve("cuMemHostRegister", 6050, api.mem_host_register);
  resolve("cuMemGetHandleForAddressRange", 11070, api.mem_get_handle_for_address_range);
  resolve("cuMemHostUnregister", 4000, api.mem_host_unregister);
  resolve("cuIpcGetMemHandle", 4010, api.ipc_get_mem_handle);
  resolve("cuIpcOpenMemHandle", 11000, api.ipc_open_mem_handle);
  resolve("cuIpcCloseMemHandle", 4010, api.ipc_close_mem_handle);
  resolve("cuStreamCreate", 2000, api.stream_create);
  resolve("cuStreamDestroy", 4000, api.stream_destroy);
  resolve("cuStreamSynchronize", 2000, api.stream_synchronize);
  resolve("cuMemcpyAsync", 4000, api.memcpy_async);
  resolve("cuEventCreate", 2000, api.event_create);
  resolve("cuEventDestroy", 4000, api.event_destroy);
  resolve("cuEventRecord", 2000, api.event_record);
  resolve("cuEventSynchronize", 2000, api.event_synchronize);
  resolve.Either("cuEventElapsedTime", 12080, 2000, api.event_elapsed_time);
}

// The reason a driver call that should have worked did not, for the
// availability status. 34 is the toolkit's stub, which answers every call
// so; 100 a driver that sees no GPU.
Status Unusable(CUresult result, const char* call) {
  if (result == CUDA_ERROR_STUB_LIBRARY) {
    return FailedPrecondition(
        "the CUDA toolkit's stub libcuda was loaded instead of an NVIDIA driver "
        "(a lib64/stubs directory on the library path?)");
  }
  if (result == CUDA_ERROR_NO_DEVICE) {
    return FailedPrecondition(
        "the NVIDIA driver sees no CUDA device (none installed, or hidden by "
        "CUDA_VISIBLE_DEVICES)");
  }
  return FailedPrecondition(
      fmt::format("the NVIDIA driver failed {}: error {}", call, static_cast<int>(result)));
}

}  // namespace

Result<std::unique_ptr<Driver>> Driver::Load(const std::string& library) {
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace, so a
  // cudart the application loads later finds its own.
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return FailedPrecondition(fmt::format("no NVIDIA driver: cannot load {} ({})", library,
                                          why != nullptr ? why : "dlopen failed"));
  }
  LibraryGuard unusable{handle};
  auto driver_get_version = Symbol<DriverGetVersionFn>(handle, "cuDriverGetVersion");
  auto init = Symbol<InitFn>(handle, "cuInit");
  if (driver_get_version == nullptr || init == nullptr) {
    return FailedPrecondition(fmt::format("{} is not an NVIDIA driver (no cuInit)", library));
  }
  std::unique_ptr<Driver> driver(new Driver());
  if (CUresult r = driver_get_version(&driver->version_); r != CUDA_SUCCESS) {
    return Unusable(r, "cuDriverGetVersion");
  }
  if (driver->version_ < kMinimumDriverVersion) {
    return FailedPrecondition(fmt::format(
        "the NVIDIA driver is too old: it supports CUDA {}, libxfer needs CUDA {} or newer",
        VersionText(driver->version_), VersionText(kMinimumDriverVersion)));
  }
  if (CUresult r = init(0); r != CUDA_SUCCESS) return Unusable(r, "cuInit");
  auto get = Symbol<PFN_cuGetProcAddress_v12000>(handle, "cuGetProcAddress_v2");
  if (get == nullptr) {
    return FailedPrecondition(fmt::format(
        "the NVIDIA driver (CUDA {}) has no cuGetProcAddress_v2", VersionText(driver->version_)));
  }
  Resolver resolve(get, driver->version_);
  ResolveAll(resolve, driver->api_);
  if (!resolve.status().ok()) return resolve.status();
  if (CUresult r = driver->api_.device_get_count(&driver->device_count_); r != CUDA_SUCCESS) {
    return Unusable(r, "cuDeviceGetCount");
  }
  if (driver->device_count_ <= 0) return Unusable(CUDA_ERROR_NO_DEVICE, "cuDeviceGetCount");
  driver->primary_.assign(static_cast<size_t>(driver->device_count_), nullptr);
  unusable.handle = nullptr;
  return driver;
}

Driver::~Driver() {
  std::lock_guard lock(mu_);
  for (size_t ordinal = 0; ordinal < primary_.size(); ++ordinal) {
    if (primary_[ordinal] == nullptr) continue;
    CUdevice device = 0;
    if (api_.device_get(&device, static_cast<int>(ordinal)) == CUDA_SUCCESS) {
      (void)api_.primary_ctx_release(device);
    }
  }
}

Status Driver::Check(CUresult result, std::string_view call, StatusCode code) const {
  if (result == CUDA_SUCCESS) return Status::Ok();
  const char* name = nullptr;
  if (api_.get_error_name == nullptr || api_.get_error_name(result, &name) != CUDA_SUCCESS ||
      name == nullptr) {
    name = "unknown CUDA error";
  }
  return Status(code, fmt::format("{}: {} ({})", call, name, static_cast<int>(result)));
}

Status Driver::UseDevice(int ordinal) {
  if (ordinal < 0 || ordinal >= device_count_) {
    return InvalidArgument(fmt::format("no CUDA device {}: this process sees {} (0..{})",
                                       ordinal, device_count_, device_count_ - 1));
  }
  CUcontext context = nullptr;
  {
    std::lock_guard lock(mu_);
    CUcontext& retained = primary_[static_cast<size_t>(ordinal)];
    if (retained == nullptr) {
      CUdevice device = 0;
      XFER_RETURN_IF_ERROR(Check(api_.device_get(&device, ordinal), "cuDeviceGet"));
      XFER_RETURN_IF_ERROR(
          Check(api_.primary_ctx_retain(&retained, device), "cuDevicePrimaryCtxRetain"));
    }
    context = retained;
  }
  return Check(api_.ctx_set_current(context), "cuCtxSetCurrent");
}

}  // namespace xfer::cuda
