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

// The table's messages as pure functions, so that their decoders can be
// tested and fuzzed alone. The count message is the table header
// (table_header.h) of the region table; each row is exactly
// kRegionRowBytes: u64 id, u64 address, u64 length, u32 access, u32
// reserved (0), little-endian.
inline constexpr size_t kRegionRowBytes = 32;
std::vector<uint8_t> EncodeRegionTableHeader(uint32_t count);
// The row count. Errors: kProtocolError (see DecodeTableHeader).
Result<uint32_t> DecodeRegionTableHeader(std::span<const uint8_t> body);
// Only id, address, length and access travel.
std::vector<uint8_t> EncodeRegionRow(const RemoteRegion& row);
// Errors: kProtocolError (truncated, trailing bytes, non-zero reserved bits).
// The access bits are checked against the handshake's table, not here.
Result<RemoteRegion> DecodeRegionRow(std::span<const uint8_t> body);

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_REGION_TABLE_H_
