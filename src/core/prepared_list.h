// What a PreparedTransfers handle refers to: a list of entries checked
// once against one connection, with what the transport resolved for them.
#ifndef XFER_CORE_PREPARED_LIST_H_
#define XFER_CORE_PREPARED_LIST_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "transport/transport.h"
#include "xfer/engine.h"

namespace xfer::internal {

class PreparedList {
 public:
  PreparedList(PeerId peer, const void* connection, std::vector<TransferEntry> entries,
               std::vector<uint64_t> local_regions, Access granted, bool stages,
               uint64_t removals_seen)
      : peer_(peer),
        connection_(connection),
        entries_(std::move(entries)),
        local_regions_(std::move(local_regions)),
        granted_(granted),
        stages_(stages),
        removals_seen_(removals_seen) {}

  PeerId peer() const { return peer_; }
  // The connection it was prepared on, for identity only: a submission
  // through another one (the peer reconnected under a new id) is refused.
  const void* connection() const { return connection_; }
  std::span<const TransferEntry> entries() const { return entries_; }
  // Per entry, the local region's id when the list was prepared.
  std::span<const uint64_t> local_regions() const { return local_regions_; }
  // The remote access every entry's region grants.
  Access granted() const { return granted_; }
  // Whether an entry's local memory bounces through the connection's
  // staging (DevicePath): such lists take Submit's staged path.
  bool stages() const { return stages_; }
  const transport::PreparedBatch* batch() const { return batch_.get(); }
  void set_batch(std::unique_ptr<transport::PreparedBatch> batch) { batch_ = std::move(batch); }

  // The engine's count of deregistrations when the local regions were last
  // found in place; a submission compares it with the registry's.
  uint64_t removals_seen() const { return removals_seen_.load(std::memory_order_acquire); }
  void set_removals_seen(uint64_t removals) {
    removals_seen_.store(removals, std::memory_order_release);
  }

  // OK while the list may be submitted; else why not (kFailedPrecondition).
  bool invalid() const { return invalid_.load(std::memory_order_acquire); }
  Status why_invalid() const {
    std::lock_guard lock(mu_);
    return why_;
  }
  // Refuses every later submission with `why` (the first reason stays).
  void Invalidate(const Status& why) {
    std::lock_guard lock(mu_);
    if (invalid_.load(std::memory_order_relaxed)) return;
    why_ = FailedPrecondition("the prepared list was invalidated: " + why.ToString());
    invalid_.store(true, std::memory_order_release);
  }

 private:
  const PeerId peer_;
  const void* const connection_;
  const std::vector<TransferEntry> entries_;
  const std::vector<uint64_t> local_regions_;
  const Access granted_;
  const bool stages_;
  std::unique_ptr<transport::PreparedBatch> batch_;
  std::atomic<uint64_t> removals_seen_;
  std::atomic<bool> invalid_{false};
  mutable std::mutex mu_;
  Status why_;  // GUARDED_BY(mu_)
};

}  // namespace xfer::internal

#endif  // XFER_CORE_PREPARED_LIST_H_
