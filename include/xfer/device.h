// CUDA devices as libxfer sees them, and the local copy bandwidths that
// anchor device-memory transfer figures (nvbandwidth's host-to-device,
// device-to-host and device-to-device copies on one GPU).
//
// The NVIDIA driver is loaded at run time by each call; on a host without
// a usable GPU every call fails with the reason (see Engine::AllocateMemory
// for the list). Thread-safe: calls share no state.
#ifndef XFER_DEVICE_H_
#define XFER_DEVICE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "xfer/export.h"
#include "xfer/status.h"

namespace xfer {

struct CudaDevice {
  int ordinal = 0;         // what MemoryOptions::device takes
  std::string name;        // "NVIDIA H200"
  std::string pci_bus_id;  // "0000:19:00.0"
  uint64_t memory_bytes = 0;
};

// What this build of libxfer does with CUDA, in one line: "built with the
// headers of CUDA 13.0; the driver is loaded at run time", or that it has
// no CUDA support. Says nothing about this host.
XFER_API std::string CudaSupport();

// Errors: kFailedPrecondition saying why this host cannot use CUDA;
// kNotSupported when this build has no CUDA support.
XFER_API Result<std::vector<CudaDevice>> ListCudaDevices();

enum class LocalCopy {
  kHostToDevice,    // pinned host memory into device memory
  kDeviceToHost,    // device memory into pinned host memory
  kDeviceToDevice,  // within one device's memory
};

// "H2D", "D2H", "D2D".
XFER_API const char* LocalCopyName(LocalCopy copy);

// Seconds `copies` back-to-back copies of `block` bytes take on `device`:
// block k of a source of copies*block bytes into block k of a destination
// as large (as a matrix sample lays out its entries, and larger than the
// GPU's L2 cache at the matrix's 128 MiB), on a CUDA stream of their own,
// timed with CUDA events around them after one untimed pass. Host memory
// is page-locked (cuMemHostAlloc), so the copy engine reads or writes it
// directly. A device-to-device byte counts once (it is
// read and written: HBM traffic is twice the bytes). Errors: as
// ListCudaDevices; kInvalidArgument (block or copies 0, an ordinal this
// process cannot see); kResourceExhausted (memory).
XFER_API Result<double> TimeLocalCopies(LocalCopy copy, int device, uint64_t block, uint32_t copies);

}  // namespace xfer

#endif  // XFER_DEVICE_H_
