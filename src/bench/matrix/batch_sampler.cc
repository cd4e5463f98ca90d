#include "bench/matrix/batch_sampler.h"

#include <fmt/format.h>

#include "common/clock.h"

namespace xfer::matrix {

BatchSampler::BatchSampler(Engine& engine, PeerId peer, const BatchLayout& layout,
                           std::chrono::milliseconds timeout)
    : engine_(engine),
      peer_(peer),
      layout_(layout),
      timeout_(timeout),
      requests_(std::make_unique<TransferRequest[]>(layout.requests)) {
  entries_.reserve(layout.entries);
  for (uint64_t j = 0; j < layout.entries; ++j) {
    entries_.push_back({layout.local + j * layout.block_size, layout.remote + j * layout.block_size,
                        layout.block_size});
  }
  for (uint32_t r = 0; r <= layout.requests; ++r) {
    first_entry_.push_back(layout.entries * r / layout.requests);
  }
}

BatchSampler::~BatchSampler() = default;

Status BatchSampler::AwaitSubmitted(uint32_t submitted,
                                    std::chrono::steady_clock::time_point deadline) {
  Status first_error;
  for (uint32_t r = 0; r < submitted; ++r) {
    const auto left = deadline - std::chrono::steady_clock::now();
    Status status = requests_[r].Wait(left.count() > 0 ? left : std::chrono::nanoseconds(0));
    if (status.code() == StatusCode::kTimeout) {
      (void)engine_.Disconnect(peer_);  // fails every request still in flight
      for (uint32_t k = r; k < submitted; ++k) (void)requests_[k].Wait(timeout_);
      return Timeout(fmt::format(
          "the batch did not complete within --timeout ({} s); the connection was closed",
          static_cast<double>(timeout_.count()) / 1000.0));
    }
    if (!status.ok() && first_error.ok()) first_error = status;
  }
  return first_error;
}

Result<double> BatchSampler::Sample() {
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  const uint64_t start = NowNs();
  uint32_t submitted = 0;
  Status submit;
  for (; submitted < layout_.requests; ++submitted) {
    const uint64_t begin = first_entry_[submitted];
    const uint64_t count = first_entry_[submitted + 1] - begin;
    submit = engine_.Submit(peer_, layout_.op, {entries_.data() + begin, count},
                            requests_[submitted], submitted % layout_.streams);
    if (!submit.ok()) break;
  }
  Status done = AwaitSubmitted(submitted, deadline);
  const uint64_t end = NowNs();
  if (!submit.ok()) return submit;
  if (!done.ok()) return done;
  return static_cast<double>(end - start) / 1e9;
}

}  // namespace xfer::matrix
