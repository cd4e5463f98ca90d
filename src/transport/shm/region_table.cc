#include "transport/shm/region_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "common/wire.h"
#include "transport/shm/table_header.h"

namespace xfer::transport::shm {
namespace {

// Wire format, little-endian (common/wire.h):
//   count message (Socket::SendMessage): the table header (table_header.h)
//   per row (Socket::SendFds, exactly kRegionRowBytes, one descriptor):
//                                        u64 id, u64 address, u64 length,
//                                        u32 access, u32 reserved (0)
// One descriptor per message keeps every message far below the kernel's
// SCM_RIGHTS limit (253) whatever the number of regions.
constexpr TableKind kRegionTable{0x544d5358, 1, "region table"};  // "XSMT"

Result<uint32_t> ReceiveCount(Socket& socket, size_t limit, Deadline deadline) {
  auto body = socket.RecvMessage(kTableHeaderBytes, deadline);
  if (!body.ok()) return body.status();
  auto count = DecodeRegionTableHeader(*body);
  if (!count.ok()) return count.status();
  if (*count > limit) {
    return ProtocolError(
        fmt::format("peer shares {} regions by descriptor but announced only {} in the handshake",
                    *count, limit));
  }
  return count;
}

// Index in remote.regions() of the region `row` describes exactly. The
// regions are sorted by address and do not overlap, so the address decides.
Result<size_t> MatchRow(const RemoteRegion& row, const RemoteMemory& remote) {
  const auto& regions = remote.regions();
  auto it = std::lower_bound(regions.begin(), regions.end(), row.address,
                             [](const RemoteRegion& r, uint64_t a) { return r.address < a; });
  if (it != regions.end() && it->id == row.id && it->address == row.address &&
      it->length == row.length && it->access == row.access) {
    return static_cast<size_t>(it - regions.begin());
  }
  return ProtocolError(fmt::format(
      "peer shared region id {} [{:#x}, +{}) access {} that is not in its handshake table", row.id,
      row.address, row.length, static_cast<uint32_t>(row.access)));
}

}  // namespace

std::vector<uint8_t> EncodeRegionTableHeader(uint32_t count) {
  return EncodeTableHeader(kRegionTable, count);
}

Result<uint32_t> DecodeRegionTableHeader(std::span<const uint8_t> body) {
  return DecodeTableHeader(kRegionTable, body);
}

std::vector<uint8_t> EncodeRegionRow(const RemoteRegion& row) {
  WireWriter w;
  w.U64(row.id);
  w.U64(row.address);
  w.U64(row.length);
  w.U32(static_cast<uint32_t>(row.access));
  w.U32(0);
  return w.bytes();
}

Result<RemoteRegion> DecodeRegionRow(std::span<const uint8_t> body) {
  WireReader r(body);
  RemoteRegion row;
  uint32_t access = 0;
  uint32_t reserved = 0;
  XFER_RETURN_IF_ERROR(r.U64(row.id));
  XFER_RETURN_IF_ERROR(r.U64(row.address));
  XFER_RETURN_IF_ERROR(r.U64(row.length));
  XFER_RETURN_IF_ERROR(r.U32(access));
  XFER_RETURN_IF_ERROR(r.U32(reserved));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  if (reserved != 0) return ProtocolError("shm region row has non-zero reserved bits");
  row.access = static_cast<Access>(access);
  return row;
}

Status SendRegionTable(Socket& socket, std::span<const LocalRegionView> announced, Deadline deadline) {
  std::vector<LocalRegionView> shared;
  for (const LocalRegionView& view : announced) {
    if (view.fd >= 0) shared.push_back(view);
  }
  XFER_RETURN_IF_ERROR(socket.SendMessage(
      EncodeRegionTableHeader(static_cast<uint32_t>(shared.size())), deadline));
  for (const LocalRegionView& view : shared) {
    const int fd = view.fd;
    RemoteRegion row;
    row.id = view.id;
    row.address = reinterpret_cast<uint64_t>(view.address);
    row.length = view.length;
    row.access = view.access;
    XFER_RETURN_IF_ERROR(
        socket.SendFds(std::span<const int>(&fd, 1), EncodeRegionRow(row), deadline));
  }
  return Status::Ok();
}

Result<std::vector<SharedRegion>> ReceiveRegionTable(Socket& socket, const RemoteMemory& remote,
                                                     Deadline deadline) {
  auto count = ReceiveCount(socket, remote.regions().size(), deadline);
  if (!count.ok()) return count.status();
  std::vector<bool> seen(remote.regions().size(), false);
  std::vector<SharedRegion> rows;
  rows.reserve(*count);
  for (uint32_t i = 0; i < *count; ++i) {
    std::vector<uint8_t> body(kRegionRowBytes);
    auto fds = socket.RecvFds(1, body, kRegionRowBytes, deadline);
    if (!fds.ok()) return fds.status();
    if (fds->size() != 1) {
      return ProtocolError(
          fmt::format("peer's shm region row {} came with {} descriptors, not 1", i, fds->size()));
    }
    auto row = DecodeRegionRow(body);
    if (!row.ok()) return row.status();
    auto index = MatchRow(*row, remote);
    if (!index.ok()) return index.status();
    if (seen[*index]) {
      return ProtocolError(fmt::format("peer shared region id {} twice", row->id));
    }
    seen[*index] = true;
    rows.push_back(SharedRegion{*row, std::move((*fds)[0])});
  }
  return rows;
}

}  // namespace xfer::transport::shm
