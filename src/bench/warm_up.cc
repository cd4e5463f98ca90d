#include "bench/warm_up.h"

#include <vector>

namespace xfer::bench {

Status WarmUp(Session& session, const BufferLayout& layout, const BwRunConfig& config,
              OpCode op) {
  // Messages above half a cycle buffer always start at offset 0.
  const uint64_t offsets =
      config.size > BufferLayout::kCycleBuffer / 2
          ? 1
          : BufferLayout::kCycleBuffer / std::max(BufferLayout::MessageOffset(config.size, 1),
                                                  BufferLayout::kCacheLine);
  std::vector<TransferEntry> batch;
  batch.reserve(offsets);
  TransferRequest request;
  for (uint32_t stream = 0; stream < config.streams; ++stream) {
    batch.clear();
    for (uint64_t k = 0; k < offsets; ++k) {
      const uint64_t offset = BufferLayout::MessageOffset(config.size, k);
      batch.push_back(TransferEntry{
          session.local_slot(layout, stream) + offset,
          session.remote_slot(layout, config.remote_slot_base + stream) + offset, config.size});
    }
    XFER_RETURN_IF_ERROR(session.engine->Submit(session.peer, op, batch, request));
    Status done = request.Wait(config.timeout);
    if (done.code() == StatusCode::kTimeout) {
      (void)session.engine->Disconnect(session.peer);
      (void)request.Wait(config.timeout);
    }
    XFER_RETURN_IF_ERROR(done.WithContext("warming up before the timed section"));
  }
  return Status::Ok();
}

}  // namespace xfer::bench
