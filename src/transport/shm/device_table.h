// The CUDA allocations each side of an shm connection exports to its peer:
// one row per kCuda region, with the legacy IPC handle of the allocation
// that holds it. The peer opens each handle into its own process, so a copy
// into or out of the region is a device copy with no help from this side.
#ifndef XFER_TRANSPORT_SHM_DEVICE_TABLE_H_
#define XFER_TRANSPORT_SHM_DEVICE_TABLE_H_

#include <span>
#include <string>
#include <vector>

#include "common/socket.h"
#include "cuda/device_runtime.h"
#include "transport/local_memory.h"
#include "transport/remote_memory.h"
#include "xfer/status.h"

namespace xfer::transport::shm {

// One of the peer's device regions, after validation.
struct DeviceRow {
  RemoteRegion region;           // equal to a kCuda row of the peer's handshake table
  uint64_t allocation_base = 0;  // in the peer's address space; <= region.address
  // Whether `handle` names the allocation. Not for VMM (cuMemCreate) memory,
  // which legacy IPC cannot share, nor where the peer's export failed;
  // `why_not` then says which, and the region stays out of reach.
  bool shareable = false;
  cuda::IpcHandle handle{};
  std::string why_not;
};

// Sends one row for every kCuda region of `announced`, exporting each
// allocation's handle through `devices`. A region that cannot be exported
// is still sent, unshareable, with the reason. Errors: kTimeout,
// kConnectionLost, kIoError.
Status SendDeviceTable(Socket& socket, std::span<const LocalRegionView> announced,
                       cuda::DeviceRuntime& devices, Deadline deadline);

// Receives the peer's rows. Each must equal a kCuda region of `remote` in
// id, address, length, access and device, appear once, and have its
// allocation start at or below the region. Errors: kProtocolError (any
// violation), kTimeout, kConnectionLost, kIoError.
Result<std::vector<DeviceRow>> ReceiveDeviceTable(Socket& socket, const RemoteMemory& remote,
                                                  Deadline deadline);

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_DEVICE_TABLE_H_
