// The memory registrations (MRs) of one verbs endpoint: every local region
// its engine announced at connect time, plus any registered later that a
// transfer uses.
//
// Why lazily: the engine tells transports about its regions only at connect
// time (EndpointSetup::announced). The peer can target only those (its
// RemoteMemory table is fixed at the handshake), but the LOCAL side of a
// transfer, a send or a receive may lie in a region registered after
// connect; the engine checks it against its live registry before posting.
// Such a region is registered with the device the first time a WR needs
// it, from LocalMemory::Snapshot(), and kept until the endpoint closes.
//
// Why in pieces: ibv_reg_mr pins and maps a region's pages on the calling
// thread, about 0.4 s per GiB of host memory. A region longer than the
// piece size is registered as consecutive MRs of that size, several at
// once on up to 4 threads, so that registering one large region (a model's
// weights, a KV cache pool) takes a fraction of that. A WR must then not
// cross a piece boundary: the post path asks for the key of each stretch
// (KeyRun) and cuts entries where a piece ends, locally and remotely
// (remote_keys.h).
//
// On deregistration the engine calls Withdraw, which deregisters the
// region's MRs: the device then refuses the peer's RDMA accesses with the
// old rkeys (remote access error) and unpins the pages. A region registered
// later at the same addresses gets fresh MRs the first time a WR needs it;
// a new region that overlaps only part of an old one replaces it likewise.
#ifndef XFER_TRANSPORT_VERBS_LOCAL_REGISTRATIONS_H_
#define XFER_TRANSPORT_VERBS_LOCAL_REGISTRATIONS_H_

#include <cstdint>
#include <shared_mutex>
#include <span>
#include <vector>

#include "transport/local_memory.h"
#include "transport/verbs/key_run.h"
#include "transport/verbs/setup_message.h"
#include "verbs/ib_handles.h"
#include "xfer/status.h"

namespace xfer::transport::verbs {

// The ibv_access_flags for a region granting `access` to the peer:
// LOCAL_WRITE always (READ destinations, receives), REMOTE_READ for
// kRemoteRead, REMOTE_WRITE for kRemoteWrite, REMOTE_ATOMIC when both
// (an atomic reads and writes). Pure.
int AccessFlagsFor(Access access);

// Thread-safe. `pd` and `local` must outlive the object.
class LocalRegistrations {
 public:
  // REQUIRES: piece_bytes is a positive multiple of 4096.
  LocalRegistrations(ibv_pd* pd, const LocalMemory* local, uint64_t piece_bytes);
  LocalRegistrations(const LocalRegistrations&) = delete;
  LocalRegistrations& operator=(const LocalRegistrations&) = delete;

  // Registers each region (hugepage-backed ones included) in pieces of at
  // most piece_bytes, several pieces at once on as many threads (up to 4)
  // when they add up to 64 MiB or more: the kernel pins and maps each MR's
  // pages on the calling thread, so pieces registered side by side take the
  // time of the largest share. Errors: from RegisterMemoryRegion
  // (kResourceExhausted, often RLIMIT_MEMLOCK); then none of them stays
  // registered.
  Status RegisterAll(std::span<const LocalRegionView> regions);

  // The keys of the MRs registered so far (one per piece), for the setup
  // message.
  std::vector<RegionKey> Keys() const;

  // For [address, address + length), which must lie inside one region of
  // the engine's table: the lkey of the MR holding `address` and the bytes
  // it covers from there (all `length` unless the range runs on into the
  // region's next piece). Registers the region now if needed; that
  // registration runs with no lock held, so posts on other regions go on
  // meanwhile. Errors: kOutOfRange (not inside one region of the engine's
  // table), kResourceExhausted (ibv_reg_mr).
  Result<KeyRun> LocalKey(const void* address, uint64_t length);

  // Deregisters every MR of region `region_id` (none: OK). Once
  // ibv_dereg_mr returns the device no longer accesses the pages: the
  // peer's accesses with the old rkey fail with a remote access error, and
  // our own WRs still in flight on it fail locally. Errors: kIoError when
  // the device refused to deregister; the MR, and its access, then remain.
  Status Withdraw(uint64_t region_id);

 private:
  // One MR: the whole region, or one of its pieces.
  struct Registration {
    uint64_t id = 0;       // the region's
    uint64_t address = 0;  // the MR's span
    uint64_t length = 0;
    uint64_t region_address = 0;  // the whole region's span
    uint64_t region_length = 0;
    Access access = Access::kNone;
    ::xfer::verbs::MemoryRegionHandle mr;
  };

  // The MR holding `address` when [address, address + length) lies inside
  // its region; else null. REQUIRES: mu_ held (shared or exclusive).
  const Registration* FindLocked(uint64_t address, uint64_t length) const;
  // The MRs of `views`, every piece of every region, registered on up to 4
  // threads; all of them or (on the first error) none. No lock is needed or
  // taken.
  Result<std::vector<Registration>> Register(std::span<const LocalRegionView* const> views) const;
  // Adds registrations, replacing stale overlapping ones (the engine has
  // deregistered their regions since). REQUIRES: mu_ held exclusively;
  // `added` holds every piece of each of its regions.
  void InsertLocked(std::vector<Registration> added);

  ibv_pd* const pd_;
  const LocalMemory* const local_;
  const uint64_t piece_bytes_;
  mutable std::shared_mutex mu_;
  std::vector<Registration> registrations_;  // GUARDED_BY(mu_); sorted by address
};

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_LOCAL_REGISTRATIONS_H_
