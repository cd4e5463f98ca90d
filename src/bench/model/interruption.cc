#include "bench/model/interruption.h"

#include <fmt/format.h>

#include <cstring>

namespace xfer::bench {

Status CheckInterrupted(const std::atomic<int>& stop) {
  const int signal = stop.load(std::memory_order_acquire);
  if (signal == 0) return Status::Ok();
  const char* name = sigabbrev_np(signal);
  return Status(StatusCode::kFailedPrecondition,
                fmt::format("interrupted by SIG{}", name != nullptr ? name : "?"));
}

Status CheckInterrupted(const std::atomic<int>& stop, size_t done, size_t total) {
  Status interrupted = CheckInterrupted(stop);
  if (interrupted.ok()) return interrupted;
  return Status(interrupted.code(), fmt::format("{} after {} of {} size{}", interrupted.message(),
                                                done, total, total == 1 ? "" : "s"));
}

Status CheckInterruptedAt(const std::atomic<int>& stop, uint64_t size) {
  if (stop.load(std::memory_order_relaxed) == 0) return Status::Ok();
  Status interrupted = CheckInterrupted(stop);
  return Status(interrupted.code(),
                fmt::format("{} while measuring size {} (dropped: not measured whole)",
                            interrupted.message(), size));
}

}  // namespace xfer::bench
