// The CUDA driver API, loaded with dlopen and resolved through
// cuGetProcAddress at explicit ABI versions. Each entry point is typed by
// the PFN_<name>_v<version> typedef of the version it was resolved at, so a
// newer header's redirects (cuMemAlloc -> cuMemAlloc_v2, ...) can never pair
// a pointer with the wrong signature.
//
// Internal to src/cuda: nothing outside this folder sees a CUDA type.
#ifndef XFER_CUDA_CUDA_DRIVER_H_
#define XFER_CUDA_CUDA_DRIVER_H_

#include <cuda.h>
#include <cudaTypedefs.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "xfer/status.h"

namespace xfer::cuda {

// The oldest driver accepted: cuGetProcAddress_v2 and every entry point
// below exist from CUDA 12.0.
inline constexpr int kMinimumDriverVersion = 12000;

struct DriverApi {
  PFN_cuGetErrorName_v6000 get_error_name = nullptr;
  PFN_cuDeviceGetCount_v2000 device_get_count = nullptr;
  PFN_cuDeviceGet_v2000 device_get = nullptr;
  PFN_cuDeviceGetName_v2000 device_get_name = nullptr;
  PFN_cuDeviceTotalMem_v3020 device_total_mem = nullptr;
  PFN_cuDeviceGetPCIBusId_v4010 device_get_pci_bus_id = nullptr;
  PFN_cuDevicePrimaryCtxRetain_v7000 primary_ctx_retain = nullptr;
  PFN_cuDevicePrimaryCtxRelease_v11000 primary_ctx_release = nullptr;
  PFN_cuCtxSetCurrent_v4000 ctx_set_current = nullptr;
  PFN_cuCtxSynchronize_v2000 ctx_synchronize = nullptr;
  PFN_cuMemAlloc_v3020 mem_alloc = nullptr;
  PFN_cuMemFree_v3020 mem_free = nullptr;
  PFN_cuMemsetD8_v3020 memset_d8 = nullptr;
  PFN_cuMemcpy_v4000 memcpy = nullptr;
  PFN_cuPointerGetAttributes_v7000 pointer_get_attributes = nullptr;
  PFN_cuMemRetainAllocationHandle_v11000 mem_retain_allocation_handle = nullptr;
  PFN_cuMemRelease_v10020 mem_release = nullptr;
  PFN_cuMemHostAlloc_v2020 mem_host_alloc = nullptr;
  PFN_cuMemFreeHost_v2000 mem_free_host = nullptr;
  PFN_cuMemHostRegister_v6050 mem_host_register = nullptr;
  PFN_cuMemGetHandleForAddressRange_v11070 mem_get_handle_for_address_range = nullptr;
  PFN_cuMemHostUnregister_v4000 mem_host_unregister = nullptr;
  PFN_cuIpcGetMemHandle_v4010 ipc_get_mem_handle = nullptr;
  PFN_cuIpcOpenMemHandle_v11000 ipc_open_mem_handle = nullptr;
  PFN_cuIpcCloseMemHandle_v4010 ipc_close_mem_handle = nullptr;
  PFN_cuStreamCreate_v2000 stream_create = nullptr;
  PFN_cuStreamDestroy_v4000 stream_destroy = nullptr;
  PFN_cuStreamSynchronize_v2000 stream_synchronize = nullptr;
  PFN_cuMemcpyAsync_v4000 memcpy_async = nullptr;
  PFN_cuEventCreate_v2000 event_create = nullptr;
  PFN_cuEventDestroy_v4000 event_destroy = nullptr;
  PFN_cuEventRecord_v2000 event_record = nullptr;
  PFN_cuEventSynchronize_v2000 event_synchronize = nullptr;
  // Resolved at 12.8 (cuEventElapsedTime_v2) where the driver has it, else
  // at 2.0: the same signature either way.
  PFN_cuEventElapsedTime_v12080 event_elapsed_time = nullptr;
};

// A loaded, initialised driver with at least one device. Thread-safe.
class Driver {
 public:
  // Loads `library` and initialises it. Errors: kFailedPrecondition naming
  // the first thing missing: the library ("no NVIDIA driver"), a real
  // driver (the toolkit's stub), its version, a visible device.
  static Result<std::unique_ptr<Driver>> Load(const std::string& library);
  // Releases the primary contexts this driver retained. The library stays
  // loaded: unloading a driver other code in the process may hold is not
  // worth the risk, and the process's exit releases it.
  ~Driver();
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  const DriverApi& api() const { return api_; }
  int version() const { return version_; }     // 1000 * major + 10 * minor
  int device_count() const { return device_count_; }

  // OK for CUDA_SUCCESS; otherwise `code` with "call: CUDA_ERROR_X (N)".
  Status Check(CUresult result, std::string_view call,
               StatusCode code = StatusCode::kInternal) const;

  // Makes `ordinal`'s primary context current on the calling thread,
  // retaining it on first use. Errors: kInvalidArgument for an ordinal this
  // process cannot see; the driver's.
  Status UseDevice(int ordinal);

 private:
  Driver() = default;

  DriverApi api_;
  int version_ = 0;
  int device_count_ = 0;
  std::mutex mu_;
  std::vector<CUcontext> primary_;  // GUARDED_BY(mu_); by ordinal, null until retained
};

}  // namespace xfer::cuda

#endif  // XFER_CUDA_CUDA_DRIVER_H_
