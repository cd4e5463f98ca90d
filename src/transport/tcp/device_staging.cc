#include "transport/tcp/device_staging.h"

#include <sys/uio.h>

#include <algorithm>

namespace xfer::transport::tcp {

std::string_view StagedPathName() { return "staged through pinned host memory, 2 x 4 MiB"; }

DeviceStaging::~DeviceStaging() {
  streams_.Clear();  // no copy is in flight past Send or Receive
  for (uint8_t* slot : slots_) {
    if (slot != nullptr) (void)devices_.FreeHost(slot);
  }
}

Result<cuda::CopyStream*> DeviceStaging::Prepare(int device) {
  for (uint8_t*& slot : slots_) {
    if (slot != nullptr) continue;
    auto pinned = devices_.AllocateHost(kStageChunk);
    if (!pinned.ok()) return pinned.status().WithContext("tcp: pinned staging memory");
    slot = static_cast<uint8_t*>(*pinned);
  }
  auto stream = streams_.For(device);
  if (!stream.ok()) return stream.status().WithContext("tcp");
  return stream;
}

Status DeviceStaging::Send(Socket& socket, std::span<const uint8_t> prefix,
                           const FrameBytes& header, int device, const void* source,
                           uint64_t length, std::chrono::milliseconds io_timeout) {
  auto stream = Prepare(device);
  if (!stream.ok()) return stream.status();
  const auto* from = static_cast<const uint8_t*>(source);
  // The first chunk is copied while the headers go out.
  const uint64_t first = std::min(length, kStageChunk);
  Status status = first > 0 ? (*stream)->Start(slots_[0], from, first) : Status::Ok();
  iovec iov[2];
  iov[0].iov_base = const_cast<uint8_t*>(prefix.data());
  iov[0].iov_len = prefix.size();
  iov[1].iov_base = const_cast<uint8_t*>(header.data());
  iov[1].iov_len = header.size();
  if (status.ok()) status = socket.SendAllv(iov, Deadline::After(io_timeout));
  if (status.ok()) status = (*stream)->Finish();
  uint64_t offset = 0;
  for (size_t k = 0; status.ok() && offset < length; ++k) {
    const uint64_t bytes = std::min(length - offset, kStageChunk);
    const uint64_t next = offset + bytes;
    if (next < length) {
      status = (*stream)->Start(slots_[(k + 1) % kStageSlots], from + next,
                                std::min(length - next, kStageChunk));
    }
    if (status.ok()) {
      status = socket.SendAll(slots_[k % kStageSlots], bytes, Deadline::After(io_timeout));
    }
    if (status.ok() && next < length) status = (*stream)->Finish();
    offset = next;
  }
  Status drained = (*stream)->Finish();  // nothing may write a slot after we return
  return status.ok() ? drained : status;
}

}  // namespace xfer::transport::tcp
