// One shm connection: one-sided READ/WRITE as memory copies into the peer's
// memory, two-sided send/recv over the connection's message channel.
#ifndef XFER_TRANSPORT_SHM_SHM_ENDPOINT_H_
#define XFER_TRANSPORT_SHM_SHM_ENDPOINT_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>

#include "transport/shm/message_channel.h"
#include "transport/shm/peer_mapping.h"
#include "transport/shm/revocation_table.h"
#include "transport/transport.h"

namespace xfer::transport::shm {

// Truly one-sided: the initiating CPU copies straight into (WRITE) or out of
// (READ) the peer's registered memory, through our mapping of its memfd or,
// for memory the peer registered without one, process_vm_writev/readv. The
// peer's application takes no part.
//
// Because the copy engine is this CPU, PostWrite/PostRead copy synchronously
// and complete the request before returning: there is no device that could
// finish the work later, and pretending otherwise would only add a queue and
// a thread hop to every transfer. A WRITE is visible to the peer when the
// request completes, as an RDMA WRITE is once its completion arrives.
//
// Thread-safety: as Endpoint. Posts on mapped memory take no lock, make no
// system call and allocate nothing; Close() waits for posts already admitted
// before it unmaps.
class ShmEndpoint final : public Endpoint {
 public:
  // Takes the mapping of the peer's regions, our own revocation table (the
  // one the peer mapped) and a started channel. `peer_pid` is the process
  // process_vm copies address (<= 0: unknown). `io_timeout` bounds Close()'s
  // wait for the peer's copies.
  ShmEndpoint(PeerMapping mapping, RevocationTable revocations, int peer_pid,
              std::unique_ptr<MessageChannel> channel, std::chrono::milliseconds io_timeout);
  ~ShmEndpoint() override;

  // Copy every entry, then complete `request` with the batch's bytes.
  // Before any byte moves, every remote range is resolved again against the
  // regions the peer shared (defence in depth behind the engine's checks)
  // and every entry is admitted against the peer's revocation table (see
  // revocation_table.h): a batch touching a region the peer has
  // deregistered moves nothing. `stream` is ignored: a memcpy has no
  // queues to spread work over.
  // Errors returned, with `request` untouched and memory unchanged:
  // kInvalidArgument (empty batch, zero length), kOutOfRange (outside the
  // peer's regions, or in one it deregistered), kPermissionDenied,
  // kConnectionLost (closed, or the peer died), or the connection's
  // failure. Errors met while copying (process_vm: see process_vm_copy.h)
  // complete the request instead; bytes may have moved.
  Status PostWrite(std::span<const TransferEntry> entries, TransferRequest& request,
                   uint32_t stream) override;
  Status PostRead(std::span<const TransferEntry> entries, TransferRequest& request,
                  uint32_t stream) override;

  // See MessageChannel::PostSend / PostRecv. `stream` is ignored.
  Status PostSend(const void* data, size_t length, TransferRequest& request,
                  uint32_t stream) override;
  Status PostRecv(void* buffer, size_t capacity, TransferRequest& request) override;

  // Raises the region's revoked flag in our revocation table, then waits
  // for the peer's copies into it that were admitted before to end.
  // kTimeout: a copy was still counted at `deadline` (the peer stalled, or
  // died, mid-copy). The region stays revoked. If it is memory the engine
  // allocated, that copy can only land in pages this process no longer maps
  // once the engine frees the region; caller-registered memory, reached
  // with process_vm_writev, may still receive it.
  Status Revoke(const LocalRegionView& region, Deadline deadline) override;

  // Also revokes every region of ours from the peer, which may go on
  // copying until it notices the close, and waits up to io_timeout for the
  // copies it has under way: memory the engine frees after a disconnect is
  // out of the peer's reach, as after Revoke.
  void Close() override;

 private:
  class PostScope;

  Status PostOneSided(std::span<const TransferEntry> entries, TransferRequest& request, bool write);
  Status CopyEntry(const TransferEntry& entry, const PeerRegion& region, bool write) const;

  // Admits every entry's copy (BeginCopy) or none: on a revoked region,
  // ends those already admitted and says which region refused.
  Status AdmitAll(std::span<const TransferEntry> entries, Access needed) const;
  // Ends the admissions AdmitAll made for `entries`.
  void EndAll(std::span<const TransferEntry> entries, Access needed) const;

  PeerMapping mapping_;
  // Ours, mapped by the peer: where Revoke withdraws our regions. Kept
  // mapped until destruction, past Close(), for Revoke after Close().
  const RevocationTable revocations_;
  const int peer_pid_;
  std::unique_ptr<MessageChannel> channel_;
  const std::chrono::milliseconds io_timeout_;

  // Admission of posts against Close(): a post raises active_posts_ and then
  // reads closed_; Close() sets closed_ and then waits for active_posts_ to
  // drain. Sequentially consistent, so one of them always sees the other.
  std::atomic<bool> closed_{false};
  std::atomic<uint32_t> active_posts_{0};
  std::mutex close_mu_;  // serialises Close() calls
};

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_SHM_ENDPOINT_H_
