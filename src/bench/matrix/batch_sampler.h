// One matrix sample, as HIXL's initiator takes it (matrix.md §2): the
// entries {local + j*block, remote + j*block, block} for j < entries are
// built once, before any clock runs; a sample is then the time from the
// first Submit to the last completion of `requests` requests in flight
// together (HIXL's async batch; 1 = one synchronous batch).
#ifndef XFER_BENCH_MATRIX_BATCH_SAMPLER_H_
#define XFER_BENCH_MATRIX_BATCH_SAMPLER_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "xfer/engine.h"

namespace xfer::matrix {

struct BatchLayout {
  OpCode op = OpCode::kWrite;
  uint8_t* local = nullptr;  // the initiator's buffer
  uint64_t remote = 0;       // the target's buffer, in its address space
  uint64_t block_size = 0;
  uint64_t entries = 0;      // >= 1
  uint32_t requests = 1;     // 1..entries; entries split as evenly as can be
  uint32_t streams = 1;      // request r goes to stream r % streams
};

// Not thread-safe; the engine and peer must outlive it.
class BatchSampler {
 public:
  BatchSampler(Engine& engine, PeerId peer, const BatchLayout& layout,
               std::chrono::milliseconds timeout);
  ~BatchSampler();
  BatchSampler(const BatchSampler&) = delete;
  BatchSampler& operator=(const BatchSampler&) = delete;

  // Moves every entry once; returns the seconds it took. No request is in
  // flight when it returns. Errors: Submit's, the first failed request's,
  // or kTimeout when the batch did not finish within the timeout; the peer
  // is then disconnected, since requests cannot be abandoned in flight.
  Result<double> Sample();

 private:
  // Waits for requests [0, submitted) until `deadline`; on timeout
  // disconnects the peer, which fails the rest.
  Status AwaitSubmitted(uint32_t submitted, std::chrono::steady_clock::time_point deadline);

  Engine& engine_;
  const PeerId peer_;
  const BatchLayout layout_;
  const std::chrono::milliseconds timeout_;
  std::vector<TransferEntry> entries_;
  std::vector<uint64_t> first_entry_;  // request r covers [first_entry_[r], first_entry_[r+1])
  std::unique_ptr<TransferRequest[]> requests_;
};

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_BATCH_SAMPLER_H_
