// Staging: one-sided transfers whose local buffers bounce through host
// memory the connection owns (xfer::DevicePath). One mechanism for every
// transport: the transport sees plain host memory, and the engine does the
// copies between it and the caller's buffers, CUDA device memory or host.
//
// A request's entries are cut into chunks of at most kChunkBytes, each
// moved through one of kSlots slots of the connection's staging memory:
//   WRITE: copy chunk k into its slot, then post the transport's WRITE of
//          the slot; the copy of chunk k+1 starts before that post, so it
//          overlaps the transfer of chunk k (a transport that sends as it
//          posts, tcp, included), and up to kSlots chunks are in flight.
//   READ:  post READs of up to kSlots chunks into their slots; as each
//          lands, copy it out and post the next chunk into the freed slot.
// Entries of a kind the transport moves itself, in a request that also has
// staged ones (DevicePath::kAuto), go straight from the caller's buffer, in
// the same order, without a copy.
//
// Device copies run on a CUDA stream of the pipeline's own per device; the
// staging memory is page-locked with the driver (MemoryRegistry's pinning)
// before the first one, so they run at the link's speed. Host copies are
// memcpy.
//
// Offloaded requests (StagedEntry::gather) go the same way, every entry
// direct: the pipeline's thread posts them a piece at a time, so that the
// caller's Submit returns before a transport that copies inside its posts
// (shm) has copied, and a cancel or deadline stops between pieces.
//
// Requests run one at a time, in submission order, on the pipeline's
// thread (started by the first request, so a connection that never stages
// costs nothing): a request completes when every chunk's transfer has
// completed (for WRITE: in the peer's memory) and, for READ, every chunk is
// in the caller's buffer.
#ifndef XFER_CORE_STAGING_PIPELINE_H_
#define XFER_CORE_STAGING_PIPELINE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "core/memory_registry.h"
#include "cuda/copy_streams.h"
#include "cuda/device_runtime.h"
#include "transport/transport.h"
#include "xfer/transfer.h"

namespace xfer::core {

// One entry of a request as the pipeline moves it.
struct StagedEntry {
  TransferEntry entry;
  // Whether the local side bounces through staging memory; otherwise the
  // transport moves it from (into) the caller's buffer itself.
  bool bounce = true;
  // The CUDA device of the local buffer; -1 for host memory.
  int device = -1;
  // Moved with its neighbours that gather too, in posts of at most
  // kChunkBytes (and max_entries_per_post entries), straight from the
  // caller's buffer: a request the engine offloads from a transport that
  // copies inside its posts (transport::Capabilities::offload_from_bytes).
  // Between posts the pipeline looks for a cancel. Never with `bounce`.
  bool gather = false;
};

class StagingPipeline {
 public:
  static constexpr uint64_t kChunkBytes = uint64_t{2} << 20;
  static constexpr uint32_t kSlots = 4;
  // A chunk's copy into the next slot runs while the chunk before is posted.
  static_assert(kSlots >= 2);

  // How PeerInfo::device_path names this path.
  static std::string PathName();

  // `endpoint`, `staging` (the connection's own registry, which the
  // endpoint sees as local memory) and `devices` outlive the pipeline.
  // `io_timeout` bounds each wait for one chunk's transfer;
  // `max_entries_per_post` is the endpoint's (Capabilities).
  StagingPipeline(transport::Endpoint& endpoint, MemoryRegistry& staging,
                  cuda::DeviceRuntime& devices, std::chrono::milliseconds io_timeout,
                  uint32_t max_entries_per_post);
  // Stop()s.
  ~StagingPipeline();
  StagingPipeline(const StagingPipeline&) = delete;
  StagingPipeline& operator=(const StagingPipeline&) = delete;

  // Queues a request whose entries the engine has checked (as for
  // Endpoint::PostWrite), arms `request` and returns; the request
  // completes from the pipeline's thread. Allocates (the entries are
  // copied): staging is not the zero-copy hot path. A non-empty
  // `notification` goes to the peer (Endpoint::PostNotify) once every chunk
  // has completed; the request then completes when it is on its way. No
  // entries and a notification: the notification alone, behind the
  // requests queued before (Engine::Notify while the pipeline is busy).
  // Errors, with `request` untouched: kConnectionLost after Stop();
  // kResourceExhausted when the staging thread cannot start.
  Status Submit(OpCode op, std::vector<StagedEntry> entries, TransferRequest& request,
                uint32_t stream, std::span<const uint8_t> notification = {});

  // What Cancel found.
  enum class Cancelled {
    kNotHere,   // the pipeline does not hold the request
    kDropped,   // it was queued: dropped, no byte moved, completed with `why`
    kStopping,  // it is running: it posts no more chunks, and completes with
                // `why` once the chunks in flight have landed (each within
                // io_timeout); the entries before them may have moved
  };
  // Cancels `request` if the pipeline holds it. Thread-safe; never waits
  // for the running request.
  Cancelled Cancel(const TransferRequest& request, const Status& why);

  // Whether a request is queued or running: while one is, the engine sends
  // every request of the connection through the pipeline, so that requests
  // on one stream still complete in posting order. One atomic load.
  bool busy() const { return pending_.load(std::memory_order_acquire) != 0; }

  // Idempotent; call after the endpoint is closed, which fails the chunks
  // in flight. Fails queued requests with kConnectionLost, waits for the
  // running one to end, joins the thread and frees the staging memory.
  void Stop();

 private:
  struct Job {
    OpCode op = OpCode::kWrite;
    std::vector<StagedEntry> entries;
    TransferRequest* request = nullptr;
    uint32_t stream = 0;
    std::vector<uint8_t> notification;  // empty: none
  };
  // One piece of an entry: the whole entry when it does not bounce; or,
  // for entries that gather, the pieces of one post.
  struct Chunk {
    uint8_t* local = nullptr;
    uint64_t remote = 0;
    uint64_t length = 0;  // gathered: of every piece
    bool bounce = false;
    int device = -1;
    std::vector<TransferEntry> pieces;  // gathered; empty otherwise
  };
  struct Slot {
    uint8_t* memory = nullptr;  // kChunkBytes of staging memory
    TransferRequest request;    // the slot's chunk's transfer
    uint64_t length = 0;        // of the chunk in flight; 0 when idle
    uint64_t seq = 0;           // its place in posting order
  };
  class ChunkCursor;

  void Loop();
  Status Run(const Job& job, uint64_t& moved);
  // Sends the job's notification and waits until it is on its way, up to
  // io_timeout (retrying while the transport's queues are full).
  Status SendNotification(const Job& job);
  Status RunWrite(const Job& job, uint64_t& moved);
  Status RunRead(const Job& job, uint64_t& moved);
  // Allocates (and, for device chunks, pins) the staging memory on first
  // use.
  Status Prepare(const Job& job);
  // Posts `chunk` through `slot` (from its memory when it bounces);
  // retries while the transport's queues are full, up to io_timeout.
  Status Post(OpCode op, const Chunk& chunk, Slot& slot, uint32_t stream);
  // Waits for the slot's transfer, if one is in flight; adds its bytes to
  // `moved` when it succeeded. Errors: the transfer's; kTimeout past
  // io_timeout, after which the slot stays in flight and the pipeline is
  // wedged (every later request fails) until the endpoint closes.
  Status Await(Slot& slot, uint64_t& moved);
  // Waits for every slot, oldest chunk first; returns the first error.
  Status Drain(uint64_t& moved);
  // Whether the running request was cancelled (the status to end it with
  // in `why`); checked between chunks.
  bool CancelRequested(Status& why);
  // A request's final status once it stopped: the error of the oldest
  // chunk that failed in transfer (`landed`, then those Drain finds), else
  // the local failure (`local`: a post, a copy), else OK.
  Status FirstFailure(const Status& landed, const Status& local, uint64_t& moved);
  // Copies between a chunk's caller buffer and its slot: memcpy, or a
  // CUDA copy on the device's stream, started here and finished by Finish.
  Status StartCopy(void* destination, const void* source, uint64_t length, int device);
  Status FinishCopies();

  transport::Endpoint& endpoint_;
  MemoryRegistry& staging_;
  const std::chrono::milliseconds io_timeout_;
  const uint32_t max_entries_per_post_;

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Job> queue_;  // GUARDED_BY(mu_)
  bool stopping_ = false;  // GUARDED_BY(mu_)
  std::thread thread_;     // GUARDED_BY(mu_) until joined
  std::atomic<uint32_t> pending_{0};  // requests queued or running
  const TransferRequest* running_ = nullptr;  // GUARDED_BY(mu_): the job Run holds
  Status cancel_why_;                         // GUARDED_BY(mu_)
  std::atomic<bool> cancel_{false};           // set with cancel_why_, for the loops

  // The pipeline thread's alone.
  MemoryRegion memory_;          // the slots' memory; id 0 until allocated
  bool pinned_ = false;          // memory_ page-locked (by staging_) for device copies
  Slot slots_[kSlots];
  cuda::CopyStreams streams_;
  cuda::CopyStream* copying_ = nullptr;  // the stream with copies started
  TransferRequest notify_request_;  // the running job's notification
  Status wedged_;                // set when a chunk outlived io_timeout
  uint64_t next_seq_ = 0;        // the next posted chunk's Slot::seq
};

}  // namespace xfer::core

#endif  // XFER_CORE_STAGING_PIPELINE_H_
