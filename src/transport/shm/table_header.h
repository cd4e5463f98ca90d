// The header each of an shm connection's setup tables starts with: u32
// magic, u32 version, u32 row count, little-endian (common/wire.h). The
// region, revocation and device tables and the notification ring each have
// their own magic, so a table that arrives out of order is refused by
// name.
#ifndef XFER_TRANSPORT_SHM_TABLE_HEADER_H_
#define XFER_TRANSPORT_SHM_TABLE_HEADER_H_

#include <cstdint>
#include <span>
#include <vector>

#include "common/socket.h"
#include "xfer/status.h"

namespace xfer::transport::shm {

struct TableKind {
  uint32_t magic = 0;
  uint32_t version = 0;
  const char* name = "";  // "region table": for errors
};

inline constexpr size_t kTableHeaderBytes = 12;

std::vector<uint8_t> EncodeTableHeader(const TableKind& kind, uint32_t count);

// The row count. Errors: kProtocolError naming the table (wrong size, bad
// magic, other version).
Result<uint32_t> DecodeTableHeader(const TableKind& kind, std::span<const uint8_t> body);

// A table that travels as one shared file: its header (with `count`) as the
// message, its descriptor as SCM_RIGHTS. Errors: as Socket::SendFds.
Status SendTableFile(Socket& socket, const TableKind& kind, uint32_t count, int fd,
                     Deadline deadline);

struct TableFile {
  UniqueFd fd;
  uint32_t count = 0;
};
// Receives what SendTableFile sent. Errors: as Socket::RecvFds, and
// kProtocolError naming the table (not exactly one descriptor, a bad
// header).
Result<TableFile> ReceiveTableFile(Socket& socket, const TableKind& kind, Deadline deadline);

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_TABLE_HEADER_H_
