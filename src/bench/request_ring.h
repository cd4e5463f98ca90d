// A fixed ring of TransferRequests for one stream: the bench's analogue of
// a send queue. Posting takes the next slot, completions are reaped in
// posting order. Allocated once per run, so the timed loop never allocates.
#ifndef XFER_BENCH_REQUEST_RING_H_
#define XFER_BENCH_REQUEST_RING_H_

#include <cstdint>
#include <memory>

#include "xfer/transfer.h"

namespace xfer::bench {

class RequestRing {
 public:
  explicit RequestRing(uint32_t slots)
      : slots_(slots), requests_(std::make_unique<TransferRequest[]>(slots)) {}

  // REQUIRES: !full().
  TransferRequest& next_to_post() { return requests_[posted_ % slots_]; }
  void MarkPosted() { ++posted_; }

  bool full() const { return posted_ - reaped_ == slots_; }
  bool empty() const { return posted_ == reaped_; }
  uint64_t outstanding() const { return posted_ - reaped_; }

  // The oldest unreaped request. REQUIRES: !empty().
  TransferRequest& oldest() { return requests_[reaped_ % slots_]; }
  void MarkReaped() { ++reaped_; }

 private:
  uint32_t slots_;
  std::unique_ptr<TransferRequest[]> requests_;
  uint64_t posted_ = 0;
  uint64_t reaped_ = 0;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_REQUEST_RING_H_
