#include "cuda/copy_streams.h"

namespace xfer::cuda {

Result<CopyStream*> CopyStreams::For(int ordinal) {
  if (ordinal < 0) return Internal("a device copy without a device");
  const auto index = static_cast<size_t>(ordinal);
  if (streams_.size() <= index) streams_.resize(index + 1);
  if (!streams_[index]) {
    auto stream = devices_.CreateCopyStream(ordinal);
    if (!stream.ok()) return stream.status().WithContext("CUDA copy stream");
    streams_[index] = std::move(*stream);
  }
  return streams_[index].get();
}

}  // namespace xfer::cuda
