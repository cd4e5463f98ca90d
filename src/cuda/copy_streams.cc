#include "cuda/copy_streams.h"

namespace xfer::cuda {

Result<CopyStream*> CopyStreams::For(int ordinal, uint32_t lane) {
  if (ordinal < 0) return Internal("a device copy without a device");
  const auto index = static_cast<size_t>(ordinal);
  if (streams_.size() <= index) streams_.resize(index + 1);
  auto& lanes = streams_[index];
  if (lanes.size() <= lane) lanes.resize(size_t{lane} + 1);
  if (!lanes[lane]) {
    auto stream = devices_.CreateCopyStream(ordinal);
    if (!stream.ok()) return stream.status().WithContext("CUDA copy stream");
    lanes[lane] = std::move(*stream);
  }
  return lanes[lane].get();
}

}  // namespace xfer::cuda
