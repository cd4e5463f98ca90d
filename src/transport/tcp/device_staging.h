// CUDA device memory over tcp: a socket cannot read or write device memory,
// so every payload byte passes through a pinned host bounce ring of
// kStageSlots chunks of kStageChunk bytes. Sending, the device-to-host copy
// of chunk k+1 runs while chunk k is on the wire; receiving, the
// host-to-device copy of chunk k runs while chunk k+1 arrives. Each copy
// goes on a CUDA stream of the staging's own, so a chunk's copy never waits
// on the application's work.
#ifndef XFER_TRANSPORT_TCP_DEVICE_STAGING_H_
#define XFER_TRANSPORT_TCP_DEVICE_STAGING_H_

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/socket.h"
#include "cuda/copy_streams.h"
#include "cuda/device_runtime.h"
#include "transport/tcp/frame.h"
#include "xfer/status.h"

namespace xfer::transport::tcp {

inline constexpr uint64_t kStageChunk = uint64_t{4} << 20;
inline constexpr size_t kStageSlots = 2;

// How results name the path ("staged through pinned host memory, 2 x 4 MiB").
std::string_view StagedPathName();

// One thread's staging: the pinned slots (made on first use) and a copy
// stream per device. Not thread-safe: each thread that moves payloads (a
// poster under its stream's send lock, the completer, the responder) has
// its own. `devices` outlives it.
class DeviceStaging {
 public:
  explicit DeviceStaging(cuda::DeviceRuntime& devices) : devices_(devices), streams_(devices) {}
  ~DeviceStaging();
  DeviceStaging(const DeviceStaging&) = delete;
  DeviceStaging& operator=(const DeviceStaging&) = delete;

  // Sends `prefix` and `header`, then `length` bytes of device memory at
  // `source` on `device`; every chunk gets a fresh `io_timeout`. Errors:
  // the socket's (kConnectionLost, kTimeout, kIoError), the driver's.
  Status Send(Socket& socket, std::span<const uint8_t> prefix, const FrameBytes& header,
              int device, const void* source, uint64_t length,
              std::chrono::milliseconds io_timeout);

  // Receives `length` bytes into device memory at `destination` on
  // `device`, reading each chunk into host memory with `read(host, bytes)`
  // (a Status-returning callable). Errors: read's, the driver's.
  template <typename Read>
  Status Receive(int device, void* destination, uint64_t length, Read&& read) {
    auto stream = Prepare(device);
    if (!stream.ok()) return stream.status();
    auto* to = static_cast<uint8_t*>(destination);
    Status status;
    uint64_t offset = 0;
    for (size_t k = 0; status.ok() && offset < length; ++k) {
      const uint64_t bytes = std::min(length - offset, kStageChunk);
      uint8_t* slot = slots_[k % kStageSlots];
      status = read(slot, bytes);
      // The copy out of this slot's other use (chunk k - 2) finished at the
      // last step; this waits for chunk k - 1's, which reads the other slot.
      if (status.ok()) status = (*stream)->Finish();
      if (status.ok()) status = (*stream)->Start(to + offset, slot, bytes);
      offset += bytes;
    }
    Status drained = (*stream)->Finish();
    return status.ok() ? drained : status;
  }

 private:
  Result<cuda::CopyStream*> Prepare(int device);

  cuda::DeviceRuntime& devices_;
  std::array<uint8_t*, kStageSlots> slots_{};
  cuda::CopyStreams streams_;
};

}  // namespace xfer::transport::tcp

#endif  // XFER_TRANSPORT_TCP_DEVICE_STAGING_H_
