// The revocation table of one shm connection direction: memory both sides
// map, through which the side that owns some regions withdraws them from a
// peer that copies into them directly.
//
// Why it exists: over shm the initiator's CPU copies straight into the
// owner's memory (its memfd mapping, or process_vm_writev), so the owner
// never sees an access and cannot refuse one as a tcp responder does.
// Instead the owner keeps, per region it announced, a slot in a memfd it
// shares with the peer: a `revoked` flag it raises and a count of the
// peer's copies in progress.
//
// The protocol (a Dekker handshake over the two words, sequentially
// consistent so that at least one side sees the other):
//   peer, per copy:  copies += 1; if revoked { copies -= 1; refuse }
//                    copy; copies -= 1 (release)
//   owner, Revoke:   revoked = 1; wait until copies == 0 (acquire)
// Either the peer sees the flag and moves no byte, or the owner sees the
// copy counted and waits for it to end; a copy's bytes therefore all
// happen before Revoke returns, or not at all.
//
// Guards against bugs, not malice: the peer maps the table read-write (it
// must count its copies), and a same-user peer could ptrace us anyway.
#ifndef XFER_TRANSPORT_SHM_REVOCATION_TABLE_H_
#define XFER_TRANSPORT_SHM_REVOCATION_TABLE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "common/socket.h"
#include "transport/local_memory.h"
#include "transport/remote_memory.h"
#include "xfer/status.h"

namespace xfer::transport::shm {

// One region's row, laid out identically in both processes (same host, same
// ABI). The two 32-bit words are accessed only through std::atomic_ref,
// which on this platform is lock-free and so address-free: it works across
// processes mapping the same page.
struct RevocationSlot {
  uint64_t region_id = 0;  // written once by the owner before sharing
  uint32_t revoked = 0;    // kRevoked[ | kClosing] bits, raised by the owner; never lowered
  uint32_t copies = 0;     // the peer's copies into the region in progress
};
static_assert(sizeof(RevocationSlot) == 16);
static_assert(std::atomic_ref<uint32_t>::is_always_lock_free);
static_assert(alignof(RevocationSlot) >= std::atomic_ref<uint32_t>::required_alignment);

// The `revoked` word's bits: the region is withdrawn; and, raised with it by
// RevokeAll, because the owner is closing the connection (so that the peer,
// racing the close, reports a lost connection rather than a deregistration).
inline constexpr uint32_t kRevoked = 1;
inline constexpr uint32_t kClosing = 2;

// Whether the owner withdrew the region by closing the connection. For the
// error path, after BeginCopy refused.
inline bool RevokedByClose(RevocationSlot& slot) {
  return (std::atomic_ref<uint32_t>(slot.revoked).load(std::memory_order_seq_cst) &
          kClosing) != 0;
}

// The peer's side of the protocol, for the posting hot path: one atomic
// read-modify-write and one load, no lock, no system call.
// Returns false, and counts nothing, when the owner has revoked the region.
inline bool BeginCopy(RevocationSlot& slot) {
  // seq_cst on both: this increment and the owner's flag store must be
  // ordered against each other's following load (see the file comment).
  std::atomic_ref<uint32_t>(slot.copies).fetch_add(1, std::memory_order_seq_cst);
  if (std::atomic_ref<uint32_t>(slot.revoked).load(std::memory_order_seq_cst) == 0) return true;
  std::atomic_ref<uint32_t>(slot.copies).fetch_sub(1, std::memory_order_relaxed);
  return false;
}

// Ends a copy BeginCopy admitted. Release: the copy's memory accesses happen
// before the owner's acquire load that sees the count drop.
inline void EndCopy(RevocationSlot& slot) {
  std::atomic_ref<uint32_t>(slot.copies).fetch_sub(1, std::memory_order_release);
}

// Owns one mapping of a table. Move-only; unmaps on destruction.
class RevocationTable {
 public:
  RevocationTable() = default;
  ~RevocationTable();
  RevocationTable(RevocationTable&& other) noexcept;
  RevocationTable& operator=(RevocationTable&& other) noexcept;
  RevocationTable(const RevocationTable&) = delete;
  RevocationTable& operator=(const RevocationTable&) = delete;

  // The owner's table: a sealed memfd with one slot per region of
  // `announced`, in address order (as the peer's RemoteMemory lists them),
  // none revoked. Errors: kResourceExhausted.
  static Result<RevocationTable> Create(std::span<const LocalRegionView> announced);

  // The peer's table as received: `fd` must be a file holding exactly one
  // slot per region of `remote`, in the order of remote.regions(), with the
  // same ids. Errors: kProtocolError (anything else), kResourceExhausted.
  static Result<RevocationTable> Map(UniqueFd fd, const RemoteMemory& remote);

  // The memfd to hand the peer (owner side; -1 on the peer side, which
  // closes it once mapped).
  int fd() const { return fd_.get(); }

  // Slot `index`: the region `index`-th by address.
  // REQUIRES: index < size().
  RevocationSlot& slot(size_t index) const { return slots_[index]; }
  size_t size() const { return count_; }

  // Owner side: revokes region `region_id` and waits until no copy the
  // peer admitted before is still running, or until `peer_exited()` says
  // the peer process is gone (its copies cannot land any more, though a
  // peer killed mid-copy leaves them counted). A region this table does not
  // list was never announced to this peer: OK at once. Idempotent.
  // Errors: kTimeout (a copy still counted at `deadline` by a peer that
  // lives: it is stalled; the region stays revoked).
  Status Revoke(uint64_t region_id, Deadline deadline,
                const std::function<bool()>& peer_exited) const;

  // Owner side: Revoke for every region at once (the connection is going
  // away, and the peer may not know yet). Errors: kTimeout, as Revoke.
  Status RevokeAll(Deadline deadline, const std::function<bool()>& peer_exited) const;

 private:
  // Waits until `slot` counts no copy, or the peer has exited. Errors:
  // kTimeout.
  static Status AwaitNoCopies(RevocationSlot& slot, Deadline deadline,
                              const std::function<bool()>& peer_exited);

  RevocationTable(UniqueFd fd, void* base, size_t map_length, size_t count);

  UniqueFd fd_;
  void* base_ = nullptr;
  size_t map_length_ = 0;
  RevocationSlot* slots_ = nullptr;
  size_t count_ = 0;
};

// Sends the owner's table descriptor (a count message carrying it as
// SCM_RIGHTS) / receives and maps the peer's. Errors: as Socket::SendFds /
// RecvFds, and RevocationTable::Map.
Status SendRevocationTable(Socket& socket, const RevocationTable& table, Deadline deadline);
Result<RevocationTable> ReceiveRevocationTable(Socket& socket, const RemoteMemory& remote,
                                               Deadline deadline);

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_REVOCATION_TABLE_H_
