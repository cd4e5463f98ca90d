// The table of memfd-backed regions each side of an shm connection hands its
// peer, descriptors included, and its validation on receipt.
#ifndef XFER_TRANSPORT_SHM_REGION_TABLE_H_
#define XFER_TRANSPORT_SHM_REGION_TABLE_H_

#include <span>
#include <vector>

#include "common/socket.h"
#include "transport/local_memory.h"
#include "transport/remote_memory.h"
#include "xfer/memory.h"
#include "xfer/status.h"

namespace xfer::transport::shm {

// One region the peer shared by descriptor, after validation.
struct SharedRegion {
  RemoteRegion region;  // equal, field for field, to a row of the peer's table
  UniqueFd fd;          // the memfd backing it; owned
};

// Sends every region of `local` that has a memfd (LocalRegionView::fd >= 0):
// one count message, then one message per region carrying its row and, as
// SCM_RIGHTS, its descriptor. The kernel duplicates the descriptors into the
// peer; the engine keeps ownership of ours. Regions without a memfd are not
// sent: the peer reaches them with process_vm_readv/writev instead.
// Errors: kTimeout (deadline), kConnectionLost, kIoError.
Status SendRegionTable(Socket& socket, std::span<const LocalRegionView> announced, Deadline deadline);

// Receives the peer's table. Each row must equal a region of `remote` (the
// table the peer announced in the engine handshake) in id, address, length
// and access, appear at most once and arrive with exactly one descriptor; the
// row count is bounded by remote.regions().size(). On error every received
// descriptor is closed. Errors: kProtocolError (any violation), kTimeout,
// kConnectionLost, kIoError.
Result<std::vector<SharedRegion>> ReceiveRegionTable(Socket& socket, const RemoteMemory& remote,
                                                     Deadline deadline);

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_REGION_TABLE_H_
