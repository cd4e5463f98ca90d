#include "transport/shm/table_header.h"

#include <fmt/format.h>

#include <utility>

#include "common/wire.h"

namespace xfer::transport::shm {

std::vector<uint8_t> EncodeTableHeader(const TableKind& kind, uint32_t count) {
  WireWriter w;
  w.U32(kind.magic);
  w.U32(kind.version);
  w.U32(count);
  return w.bytes();
}

Result<uint32_t> DecodeTableHeader(const TableKind& kind, std::span<const uint8_t> body) {
  WireReader r(body);
  uint32_t magic = 0;
  uint32_t version = 0;
  uint32_t count = 0;
  Status read = r.U32(magic);
  if (read.ok()) read = r.U32(version);
  if (read.ok()) read = r.U32(count);
  if (read.ok()) read = r.ExpectEnd();
  if (!read.ok()) {
    return ProtocolError(fmt::format("peer's shm {} header: {}", kind.name, read.message()));
  }
  if (magic != kind.magic) {
    return ProtocolError(fmt::format("peer's shm {} has a bad magic ({:#x}, expected {:#x})",
                                     kind.name, magic, kind.magic));
  }
  if (version != kind.version) {
    return ProtocolError(fmt::format("peer's shm {} is version {}, expected {}", kind.name,
                                     version, kind.version));
  }
  return count;
}

Status SendTableFile(Socket& socket, const TableKind& kind, uint32_t count, int fd,
                     Deadline deadline) {
  return socket.SendFds(std::span<const int>(&fd, 1), EncodeTableHeader(kind, count), deadline);
}

Result<TableFile> ReceiveTableFile(Socket& socket, const TableKind& kind, Deadline deadline) {
  std::vector<uint8_t> body(kTableHeaderBytes);
  auto fds = socket.RecvFds(1, body, kTableHeaderBytes, deadline);
  if (!fds.ok()) return fds.status();
  if (fds->size() != 1) {
    return ProtocolError(fmt::format("peer's shm {} came with {} descriptors, not 1", kind.name,
                                     fds->size()));
  }
  auto count = DecodeTableHeader(kind, body);
  if (!count.ok()) return count.status();
  return TableFile{std::move((*fds)[0]), *count};
}

}  // namespace xfer::transport::shm
