#include "transport/shm/device_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "common/wire.h"
#include "transport/shm/table_header.h"

namespace xfer::transport::shm {
namespace {

// Wire format, little-endian (common/wire.h), one Socket message each:
//   count: the table header (table_header.h)
//   row:   u64 id, u64 address, u64 length, u32 access, u32 device,
//          u64 allocation base, u8 shareable, 64 bytes IPC handle,
//          string why_not (u16 length, at most kMaxReasonBytes)
constexpr TableKind kDeviceTable{0x444d5358, 1, "device table"};  // "XSMD"
constexpr size_t kMaxReasonBytes = 512;
constexpr size_t kMaxRowBytes = 8 * 3 + 4 * 2 + 8 + 1 + 64 + 2 + kMaxReasonBytes;

std::vector<uint8_t> EncodeRow(const LocalRegionView& view, const DeviceRow& row) {
  WireWriter w;
  w.U64(view.id);
  w.U64(reinterpret_cast<uint64_t>(view.address));
  w.U64(view.length);
  w.U32(static_cast<uint32_t>(view.access));
  w.U32(static_cast<uint32_t>(view.device));
  w.U64(row.allocation_base);
  w.U8(row.shareable ? 1 : 0);
  for (uint8_t byte : row.handle) w.U8(byte);
  w.String(row.why_not.substr(0, kMaxReasonBytes));
  return w.bytes();
}

// What this side can tell the peer about one of its device regions.
DeviceRow Export(const LocalRegionView& view, cuda::DeviceRuntime& devices) {
  DeviceRow row;
  auto info = devices.Classify(view.address, view.length);
  if (!info.ok()) {
    row.why_not = info.status().ToString();
    return row;
  }
  if (!info->device) {
    row.why_not = "the exporting side no longer sees this region as device memory";
    return row;
  }
  row.allocation_base = info->base;
  if (info->vmm) {
    row.why_not = "VMM (cuMemCreate) memory, which legacy CUDA IPC cannot share";
    return row;
  }
  auto handle = devices.ExportIpc(info->base);
  if (!handle.ok()) {
    row.why_not = handle.status().ToString();
    return row;
  }
  row.shareable = true;
  row.handle = *handle;
  return row;
}

Result<DeviceRow> DecodeRow(std::span<const uint8_t> body) {
  WireReader r(body);
  DeviceRow row;
  uint32_t access = 0;
  uint32_t device = 0;
  uint8_t shareable = 0;
  XFER_RETURN_IF_ERROR(r.U64(row.region.id));
  XFER_RETURN_IF_ERROR(r.U64(row.region.address));
  XFER_RETURN_IF_ERROR(r.U64(row.region.length));
  XFER_RETURN_IF_ERROR(r.U32(access));
  XFER_RETURN_IF_ERROR(r.U32(device));
  XFER_RETURN_IF_ERROR(r.U64(row.allocation_base));
  XFER_RETURN_IF_ERROR(r.U8(shareable));
  for (uint8_t& byte : row.handle) XFER_RETURN_IF_ERROR(r.U8(byte));
  XFER_RETURN_IF_ERROR(r.String(row.why_not, kMaxReasonBytes));
  XFER_RETURN_IF_ERROR(r.ExpectEnd());
  if (shareable > 1) return ProtocolError("shm device row has a bad shareable flag");
  row.shareable = shareable == 1;
  row.region.access = static_cast<Access>(access);
  row.region.kind = MemoryKind::kCuda;
  row.region.device = static_cast<int32_t>(device);
  return row;
}

Result<size_t> MatchRow(const DeviceRow& row, const RemoteMemory& remote) {
  const auto& regions = remote.regions();
  auto it = std::lower_bound(regions.begin(), regions.end(), row.region.address,
                             [](const RemoteRegion& r, uint64_t a) { return r.address < a; });
  const RemoteRegion& want = row.region;
  if (it == regions.end() || it->id != want.id || it->address != want.address ||
      it->length != want.length || it->access != want.access ||
      it->kind != MemoryKind::kCuda || it->device != want.device) {
    return ProtocolError(fmt::format(
        "peer exported device region id {} [{:#x}, +{}) on device {} that is not a CUDA region "
        "of its handshake table",
        want.id, want.address, want.length, want.device));
  }
  if (row.shareable && row.allocation_base > want.address) {
    return ProtocolError(fmt::format(
        "peer's device region id {} starts before the allocation it says holds it", want.id));
  }
  return static_cast<size_t>(it - regions.begin());
}

}  // namespace

Status SendDeviceTable(Socket& socket, std::span<const LocalRegionView> announced,
                       cuda::DeviceRuntime& devices, Deadline deadline) {
  std::vector<const LocalRegionView*> rows;
  for (const LocalRegionView& view : announced) {
    if (view.kind == MemoryKind::kCuda) rows.push_back(&view);
  }
  XFER_RETURN_IF_ERROR(socket.SendMessage(
      EncodeTableHeader(kDeviceTable, static_cast<uint32_t>(rows.size())), deadline));
  for (const LocalRegionView* view : rows) {
    XFER_RETURN_IF_ERROR(socket.SendMessage(EncodeRow(*view, Export(*view, devices)), deadline));
  }
  return Status::Ok();
}

Result<std::vector<DeviceRow>> ReceiveDeviceTable(Socket& socket, const RemoteMemory& remote,
                                                  Deadline deadline) {
  auto head = socket.RecvMessage(kTableHeaderBytes, deadline);
  if (!head.ok()) return head.status();
  auto header = DecodeTableHeader(kDeviceTable, *head);
  if (!header.ok()) return header.status();
  const uint32_t count = *header;
  const auto cuda_regions = static_cast<size_t>(
      std::count_if(remote.regions().begin(), remote.regions().end(),
                    [](const RemoteRegion& region) { return region.kind == MemoryKind::kCuda; }));
  if (count != cuda_regions) {
    return ProtocolError(fmt::format(
        "peer exported {} device regions but announced {} in the handshake", count,
        cuda_regions));
  }
  std::vector<bool> seen(remote.regions().size(), false);
  std::vector<DeviceRow> rows;
  rows.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    auto body = socket.RecvMessage(kMaxRowBytes, deadline);
    if (!body.ok()) return body.status();
    auto row = DecodeRow(*body);
    if (!row.ok()) return row.status();
    auto index = MatchRow(*row, remote);
    if (!index.ok()) return index.status();
    if (seen[*index]) return ProtocolError(fmt::format("peer exported device region id {} twice", row->region.id));
    seen[*index] = true;
    rows.push_back(std::move(*row));
  }
  return rows;
}

}  // namespace xfer::transport::shm
