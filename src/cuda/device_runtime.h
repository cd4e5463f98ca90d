// CUDA device memory as the engine sees it: whether this host can use it
// (and why not), allocation on a device, and what a caller's pointer is.
// The driver is loaded at run time on first use, never linked, so libxfer
// and the xfer binary run on hosts without a GPU or a driver; there every
// call fails with the reason instead.
//
// No CUDA type crosses this header: the core and the bench include it
// whether or not this build has the CUDA headers.
#ifndef XFER_CUDA_DEVICE_RUNTIME_H_
#define XFER_CUDA_DEVICE_RUNTIME_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/unique_fd.h"
#include "xfer/status.h"

namespace xfer::cuda {

// The driver's SONAME. Never the unversioned libcuda.so, which is a
// development symlink or the toolkit's stub.
inline constexpr const char* kDriverLibrary = "libcuda.so.1";

// What a pointer is, as the driver says.
struct PointerInfo {
  bool device = false;   // CUDA device memory (cudaMalloc or VMM)
  int ordinal = -1;      // its device; -1 for host memory
  uint64_t base = 0;     // the allocation that contains it (device only)
  uint64_t size = 0;
  bool vmm = false;      // made by cuMemCreate (shared by fd, not by IPC handle)
  bool managed = false;  // unified memory: refused, see Classify
  // Host memory page-locked with the driver (cuMemHostAlloc,
  // cuMemHostRegister); false for pageable memory and device memory.
  bool pinned = false;
};

struct DeviceInfo {
  int ordinal = 0;
  std::string name;        // "NVIDIA H200"
  std::string pci_bus_id;  // "0000:19:00.0"
  uint64_t memory_bytes = 0;
};

// A dma-buf of device memory (cuMemGetHandleForAddressRange): what a NIC
// registers it through (ibv_reg_dmabuf_mr), the kernel's way for one device
// to reach another's memory. Owns the file descriptor. Move-only.
class DmaBuf {
 public:
  DmaBuf(UniqueFd fd, uint64_t offset) : fd_(std::move(fd)), offset_(offset) {}

  int fd() const { return fd_.get(); }
  // Where the exported address lies in the buffer (the buffer starts at
  // the page below it).
  uint64_t offset() const { return offset_; }

 private:
  UniqueFd fd_;
  uint64_t offset_ = 0;
};

// A legacy CUDA IPC handle (CUipcMemHandle's 64 bytes): names one
// cuMemAlloc/cudaMalloc allocation to another process on the same host.
using IpcHandle = std::array<uint8_t, 64>;

// Copies on a CUDA stream of its own (non-blocking, so it never waits on the
// application's default-stream work), on one device. One thread at a time.
class CopyStream {
 public:
  virtual ~CopyStream() = default;
  // Copies `length` bytes between any of host and device memory and waits
  // for the copy. Errors: the driver's, as kInternal.
  virtual Status Copy(void* destination, const void* source, size_t length) = 0;
  // Start queues the copy and returns at once; Finish waits for every copy
  // started, so that their buffers may be reused. Errors: the driver's, as
  // kInternal (a failed copy's error comes from Finish).
  virtual Status Start(void* destination, const void* source, size_t length) = 0;
  virtual Status Finish() = 0;
  // A point in the stream after every copy started so far (a CUDA event
  // from the stream's pool): WaitMark returns once those copies are done,
  // without waiting for copies started after the mark. The one exception to
  // "one thread at a time": another thread may wait for marks while the
  // owner starts copies and makes marks; each mark is waited for exactly
  // once, then reused. Errors: the driver's, as kInternal (a failed copy's
  // error comes from WaitMark).
  virtual Result<uint32_t> Mark() = 0;
  virtual Status WaitMark(uint32_t mark) = 0;
  // Times `blocks` back-to-back copies of `length` bytes, block k from
  // source + k*length to destination + k*length (both hold blocks*length
  // bytes), with CUDA events around them on this stream, after one untimed
  // pass; returns the seconds between the events. Errors: the driver's, as
  // kInternal.
  virtual Result<double> TimeCopies(void* destination, const void* source, size_t length,
                                    int blocks) = 0;
};

// Thread-safe: every call sets the device's primary context on the calling
// thread first (the context a CUDA application's own runtime uses), so any
// thread may call.
class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;

  // A runtime that loads `library` on first use. A test names the toolkit's
  // stub file to see the stub refused.
  static std::unique_ptr<DeviceRuntime> Create(std::string library = kDriverLibrary);
  // Whether this build has CUDA support at all (the toolkit's headers were
  // found); says nothing about this host.
  static bool Built();
  // See xfer::CudaSupport().
  static std::string BuildDescription();

  // OK when CUDA device memory can be used on this host. Otherwise
  // kFailedPrecondition saying why, in the order it is found: no NVIDIA
  // driver, the toolkit's stub library instead of a driver, a driver older
  // than CUDA 12.0, no CUDA device visible; kNotSupported when this build of
  // libxfer has no CUDA support. The first call loads and initialises the
  // driver (slow on a GPU host); the answer is kept.
  virtual Status Available() = 0;

  // Devices visible to this process, by ordinal. Errors: Available()'s.
  virtual Result<std::vector<DeviceInfo>> Devices() = 0;

  // `length` bytes of device memory on `ordinal`, zero-filled, owned by the
  // caller until Free. Errors: Available()'s; kInvalidArgument (length 0,
  // an ordinal that is not a visible device); kResourceExhausted (the
  // device is out of memory).
  virtual Result<uint64_t> Allocate(int ordinal, size_t length) = 0;
  // Frees what Allocate returned. Errors: the driver's, as kInternal.
  virtual Status Free(uint64_t address) = 0;

  // What [address, address+length) is. Host memory when CUDA is not
  // available (there can be no device pointer then). Errors:
  // kInvalidArgument for a range that leaves its device allocation, and for
  // managed memory (it migrates between host and device, so neither
  // transport path is right for it).
  virtual Result<PointerInfo> Classify(const void* address, size_t length) = 0;

  // Copies `length` bytes between any two of host and device memory (the
  // driver tells them apart by address) and waits for the copy. For tests
  // and data checks, not for measurement. Errors: Available()'s; the
  // driver's, as kInternal.
  virtual Status Copy(void* destination, const void* source, size_t length) = 0;

  // A copy stream on `ordinal`. Errors: Available()'s; kInvalidArgument
  // (no such device); the driver's.
  virtual Result<std::unique_ptr<CopyStream>> CreateCopyStream(int ordinal) = 0;

  // Page-locked host memory of `length` bytes (cuMemHostAlloc), for copies
  // that must not be staged by the driver; freed with FreeHost. Errors:
  // Available()'s; kResourceExhausted.
  virtual Result<void*> AllocateHost(size_t length) = 0;
  virtual Status FreeHost(void* address) = 0;

  // Page-locks host memory the caller owns, [address, address+length),
  // for every device (cuMemHostRegister, PORTABLE), so that copies between
  // it and device memory run at the link's speed instead of through the
  // driver's own bounce buffer; costs about as much as registering the
  // pages with a NIC. UnpinHost undoes it; the memory must stay mapped
  // until then. Errors: Available()'s; kResourceExhausted (RLIMIT_MEMLOCK,
  // a mapping the driver refuses, a range already pinned).
  virtual Status PinHost(void* address, size_t length) = 0;
  virtual Status UnpinHost(void* address) = 0;

  // A dma-buf covering device memory [address, address+length), which must
  // lie in one allocation: the pages around it are exported, and
  // DmaBuf::offset says where `address` lies. Errors: Available()'s;
  // kInvalidArgument (not device memory; a range whose pages leave the
  // allocation); kNotSupported (the driver or the device cannot export
  // dma-bufs: CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0, as on drivers
  // without the open kernel modules).
  virtual Result<DmaBuf> ExportDmaBuf(const void* address, size_t length) = 0;

  // Legacy IPC, for cuMemAlloc/cudaMalloc memory only (not VMM memory):
  // the handle of the allocation that starts at `allocation_base`.
  // Errors: Available()'s; the driver's, as kInvalidArgument.
  virtual Result<IpcHandle> ExportIpc(uint64_t allocation_base) = 0;
  // Maps another process's allocation into this one, in `ordinal`'s primary
  // context; returns its base here. A handle this process exported itself
  // cannot be opened (CUDA's rule). Errors: Available()'s; the driver's.
  virtual Result<uint64_t> OpenIpc(const IpcHandle& handle, int ordinal) = 0;
  virtual Status CloseIpc(uint64_t address, int ordinal) = 0;
};

}  // namespace xfer::cuda

#endif  // XFER_CUDA_DEVICE_RUNTIME_H_
