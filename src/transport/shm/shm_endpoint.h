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
#include <vector>

#include "cuda/copy_streams.h"
#include "cuda/device_runtime.h"
#include "transport/shm/device_completions.h"
#include "transport/shm/message_channel.h"
#include "transport/shm/notification_ring.h"
#include "transport/shm/peer_liveness.h"
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
// CUDA device memory on either side (this process's, or the peer's opened
// through its IPC handle) moves as a device copy on a CUDA stream of this
// endpoint's own, one per device. The post queues the batch's copies and a
// stream mark after them, and returns: the request completes from the
// endpoint's device completion thread once the mark is reached
// (device_completions.h), so back-to-back requests keep the copy engine
// busy with no host synchronisation between them. While device requests
// are pending, a host request completes behind them, in posting order.
//
// Thread-safety: as Endpoint. Posts on mapped host memory take no lock,
// make no system call and allocate nothing; on a host with a usable GPU
// they also look up each local buffer's memory kind (a shared lock). Device
// copies take the endpoint's device lock and allocate their pending
// completion. Close() waits for posts already
// admitted before it unmaps.
class ShmEndpoint final : public Endpoint {
 public:
  // Takes the mapping of the peer's regions, our own revocation table (the
  // one the peer mapped), a started channel, and the notification rings:
  // ours (the channel drains it too) and the peer's. `peer_pid` is the
  // process process_vm copies address (<= 0: unknown). `io_timeout` bounds
  // Close()'s wait for the peer's copies, and a notification's wait for
  // room in the peer's ring. `local` and `devices` outlive the endpoint.
  struct Notifications {
    std::shared_ptr<InboundRing> inbound;
    std::unique_ptr<OutboundRing> outbound;
  };
  ShmEndpoint(PeerMapping mapping, RevocationTable revocations, int peer_pid,
              std::unique_ptr<MessageChannel> channel, Notifications notifications,
              std::chrono::milliseconds io_timeout, const LocalMemory& local,
              cuda::DeviceRuntime& devices, uint32_t streams);
  ~ShmEndpoint() override;

  // Copy every entry, then complete `request` with the batch's bytes:
  // before returning for host memory, from the device completion thread
  // once its copies are done for a batch with device memory.
  // Before any byte moves, every remote range is resolved again against the
  // regions the peer shared (defence in depth behind the engine's checks)
  // and every entry is admitted against the peer's revocation table (see
  // revocation_table.h): a batch touching a region the peer has
  // deregistered moves nothing. `stream` matters to device copies only:
  // entry i of the batch is queued on CUDA stream (lane) (stream + i) mod
  // the connection's stream count, so `--streams N` spreads a batch over N
  // CUDA streams; a memcpy has no queues to spread work over.
  // Errors returned, with `request` untouched and memory unchanged:
  // kInvalidArgument (empty batch, zero length), kOutOfRange (outside the
  // peer's regions, or in one it deregistered), kPermissionDenied,
  // kNotSupported (a peer device region this side could not open, with the
  // reason; device memory to or from peer memory that has no descriptor),
  // kConnectionLost (closed, or the peer died), or the connection's
  // failure. Errors met while copying (process_vm: see process_vm_copy.h;
  // the driver's) complete the request instead; bytes may have moved.
  Status PostWrite(std::span<const TransferEntry> entries, TransferRequest& request,
                   uint32_t stream) override;
  Status PostRead(std::span<const TransferEntry> entries, TransferRequest& request,
                  uint32_t stream) override;

  // Resolves each remote range to our mapping of it once, and collects the
  // revocation slots of the regions the list reaches. Lists with an entry
  // that does not move by memcpy (process_vm, device memory) prepare
  // nothing: they post as batches do.
  Result<std::unique_ptr<PreparedBatch>> Prepare(std::span<const TransferEntry> entries) override;
  // Admits the list's regions (one BeginCopy each, however many entries),
  // copies the selected entries with memcpy and completes the request
  // before returning: no lookup per entry. Behind pending device requests
  // it posts as PostWrite does, to keep posting order.
  Status PostPrepared(const PreparedBatch& batch, std::span<const TransferEntry> entries,
                      const PreparedSelection& selection, OpCode op, TransferRequest& request,
                      uint32_t stream) override;

  // See MessageChannel::PostSend / PostRecv. `stream` is ignored.
  Status PostSend(const void* data, size_t length, TransferRequest& request,
                  uint32_t stream) override;
  Status PostRecv(void* buffer, size_t capacity, TransferRequest& request) override;

  // The next slot of the peer's notification ring (notification_ring.h),
  // completing `request` once it is published there. Host copies are done
  // when their post returns, so the notification follows them; while
  // device requests are pending it is published by the device completion
  // thread once their copies are done, in posting order. `stream` is
  // ignored: the order holds across streams. A ring that stays full for
  // io_timeout (a peer that neither reads nor drains) fails the connection
  // with kTimeout.
  Status PostNotify(std::span<const uint8_t> message, TransferRequest& request,
                    uint32_t stream) override;

  // Drain our ring into the sink on the calling thread; AwaitNotifications
  // first asks the peer for a doorbell. A ring holding nonsense, or a sink
  // that refuses, fails the connection.
  void PollNotifications() override;
  void AwaitNotifications() override;

  // Raises the region's revoked flag in our revocation table, then waits
  // for the peer's copies into it that were admitted before to end.
  // kTimeout: a copy was still counted at `deadline` by a peer that is
  // still alive (it stalled mid-copy); a peer that died mid-copy leaves its
  // copies counted, and its exit ends the wait at once. The region stays
  // revoked. If it is memory the engine allocated, that copy can only land
  // in pages this process no longer maps once the engine frees the region;
  // caller-registered memory, reached with process_vm_writev, may still
  // receive it.
  Status Revoke(const LocalRegionView& region, Deadline deadline) override;

  // Also revokes every region of ours from the peer, which may go on
  // copying until it notices the close, and waits up to io_timeout for the
  // copies it has under way: memory the engine frees after a disconnect is
  // out of the peer's reach, as after Revoke.
  void Close() override;

 private:
  class PostScope;
  class ResolvedBatch;
  class MappedBatch;

  // How one entry's bytes move.
  enum class Path { kMemcpy, kProcessVm, kDevice };
  struct Route {
    Path path = Path::kMemcpy;
    int device = -1;  // kDevice: whose stream copies
  };

  Status PostOneSided(std::span<const TransferEntry> entries, TransferRequest& request, bool write,
                      uint32_t stream);
  // Publishes `message` in the peer's ring, ringing its doorbell when the
  // ring asks, waiting up to io_timeout for room.
  Status SendNotification(std::span<const uint8_t> message);
  // Fails the connection when `status` is an error (a ring's).
  void BreakUnlessOk(const Status& status);
  // The route from `entry.local` to `region`, or kNotSupported saying why
  // there is none.
  Result<Route> RouteFor(const TransferEntry& entry, const PeerRegion& region) const;
  // The CUDA device of the local buffer, or -1 for host memory.
  int LocalDevice(const TransferEntry& entry) const;
  // Host routes copy now; a device route starts its copy and adds its
  // stream to `device_streams`.
  Status CopyEntry(const TransferEntry& entry, const PeerRegion& region, const Route& route,
                   bool write, uint32_t lane, std::vector<cuda::CopyStream*>& device_streams);
  Status StartDeviceCopy(int device, uint32_t lane, void* destination, const void* source,
                         size_t length, std::vector<cuda::CopyStream*>& started);
  // Hands the request to the completion thread behind a mark on each of
  // `streams`; where that fails, waits for the copies here instead. Either
  // way the batch's admissions end after its copies.
  void CompleteAfterDeviceCopies(const ResolvedBatch& batch, TransferRequest& request,
                                 const Status& status, size_t moved,
                                 const std::vector<cuda::CopyStream*>& streams);

  // Admits every entry's copy (BeginCopy) or none: on a revoked region,
  // ends those already admitted and says which region refused.
  Status AdmitAll(const ResolvedBatch& batch) const;
  // Ends the admissions of the batch's first `count` entries.
  void EndAll(const ResolvedBatch& batch, size_t count) const;

  PeerMapping mapping_;
  // Ours, mapped by the peer: where Revoke withdraws our regions. Kept
  // mapped until destruction, past Close(), for Revoke after Close().
  const RevocationTable revocations_;
  const int peer_pid_;
  const PeerLiveness peer_;  // ends revocation waits on a peer that has exited
  std::unique_ptr<MessageChannel> channel_;
  const std::shared_ptr<InboundRing> inbound_;    // ours, which the peer writes
  const std::unique_ptr<OutboundRing> outbound_;  // the peer's, which we write
  const std::chrono::milliseconds io_timeout_;
  const LocalMemory& local_;
  cuda::DeviceRuntime& devices_;
  // Whether this host can have device memory at all; when not, no post
  // asks what a local buffer is.
  const bool gpu_host_;
  // The connection's stream count: device copies spread over as many
  // CUDA streams (lanes) per device.
  const uint32_t streams_;
  std::mutex device_mu_;
  cuda::CopyStreams copy_streams_;  // GUARDED_BY(device_mu_)
  // Before the streams are destroyed: drained by Close().
  DeviceCompletions device_completions_;

  // Admission of posts against Close(): a post raises active_posts_ and then
  // reads closed_; Close() sets closed_ and then waits for active_posts_ to
  // drain. Sequentially consistent, so one of them always sees the other.
  std::atomic<bool> closed_{false};
  std::atomic<uint32_t> active_posts_{0};
  std::mutex close_mu_;  // serialises Close() calls
};

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_SHM_ENDPOINT_H_
