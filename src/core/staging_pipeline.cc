#include "core/staging_pipeline.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "common/request_access.h"

namespace xfer::core {

// Walks a request's entries as chunks: entries that bounce in pieces of at
// most kChunkBytes, the others whole.
class StagingPipeline::ChunkCursor {
 public:
  ChunkCursor(std::span<const StagedEntry> entries, uint32_t max_entries_per_post)
      : entries_(entries), max_pieces_(std::max<uint32_t>(max_entries_per_post, 1)) {}

  // The next chunk into `chunk`; false when none is left.
  bool Next(Chunk& chunk) {
    if (index_ == entries_.size()) return false;
    const StagedEntry& e = entries_[index_];
    chunk.pieces.clear();
    if (e.gather) return Gather(chunk);
    const uint64_t left = e.entry.length - offset_;
    chunk.bounce = e.bounce;
    chunk.device = e.device;
    chunk.length = e.bounce ? std::min(left, kChunkBytes) : left;
    chunk.local = static_cast<uint8_t*>(e.entry.local) + offset_;
    chunk.remote = e.entry.remote + offset_;
    offset_ += chunk.length;
    if (offset_ == e.entry.length) {
      ++index_;
      offset_ = 0;
    }
    return true;
  }

 private:
  // Pieces of the entries that gather, from the cursor on, up to
  // kChunkBytes and max_pieces_ of them: one post.
  bool Gather(Chunk& chunk) {
    chunk.bounce = false;
    chunk.device = -1;
    chunk.length = 0;
    while (index_ < entries_.size() && entries_[index_].gather &&
           chunk.length < kChunkBytes && chunk.pieces.size() < max_pieces_) {
      const TransferEntry& e = entries_[index_].entry;
      const uint64_t take = std::min(e.length - offset_, kChunkBytes - chunk.length);
      chunk.pieces.push_back({static_cast<uint8_t*>(e.local) + offset_, e.remote + offset_,
                              static_cast<size_t>(take)});
      chunk.length += take;
      offset_ += take;
      if (offset_ == e.length) {
        ++index_;
        offset_ = 0;
      }
    }
    return true;
  }

  std::span<const StagedEntry> entries_;
  const size_t max_pieces_;
  size_t index_ = 0;
  uint64_t offset_ = 0;
};

std::string StagingPipeline::PathName() {
  return fmt::format("staged through pinned host memory, {} x {} MiB", kSlots, kChunkBytes >> 20);
}

StagingPipeline::StagingPipeline(transport::Endpoint& endpoint, MemoryRegistry& staging,
                                 cuda::DeviceRuntime& devices,
                                 std::chrono::milliseconds io_timeout,
                                 uint32_t max_entries_per_post)
    : endpoint_(endpoint),
      staging_(staging),
      io_timeout_(io_timeout),
      max_entries_per_post_(max_entries_per_post),
      streams_(devices) {}

StagingPipeline::~StagingPipeline() { Stop(); }

Status StagingPipeline::Submit(OpCode op, std::vector<StagedEntry> entries,
                               TransferRequest& request, uint32_t stream,
                               std::span<const uint8_t> notification) {
  std::lock_guard lock(mu_);
  if (stopping_) return ConnectionLost("the connection is closed");
  if (!thread_.joinable()) {
    try {
      thread_ = std::thread([this] { Loop(); });
    } catch (const std::system_error& e) {
      return ResourceExhausted(fmt::format("cannot start the staging thread: {}", e.what()));
    }
  }
  internal::RequestAccess::Start(request, 1);
  pending_.fetch_add(1, std::memory_order_acq_rel);
  queue_.push_back(Job{op, std::move(entries), &request, stream,
                      std::vector<uint8_t>(notification.begin(), notification.end())});
  wake_.notify_one();
  return Status::Ok();
}

void StagingPipeline::Stop() {
  std::deque<Job> dropped;
  std::thread thread;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    dropped.swap(queue_);
    thread = std::move(thread_);
    wake_.notify_all();
  }
  for (Job& job : dropped) {
    internal::RequestAccess::Complete(*job.request, ConnectionLost("the connection closed"), 0);
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
  if (thread.joinable()) thread.join();
  // The thread is gone: its members are ours now.
  uint64_t ignored = 0;
  (void)Drain(ignored);
  streams_.Clear();
  if (memory_.id != 0) {
    // Never announced, so only this connection's endpoint may hold it (a
    // verbs memory registration): withdrawn there, then unmapped.
    (void)staging_.Deregister(memory_, [this](const transport::LocalRegionView& view) {
      return endpoint_.Revoke(view, Deadline::After(io_timeout_));
    });
    memory_ = MemoryRegion{};
  }
}

StagingPipeline::Cancelled StagingPipeline::Cancel(const TransferRequest& request,
                                                   const Status& why) {
  Job dropped;
  {
    std::lock_guard lock(mu_);
    auto it = std::find_if(queue_.begin(), queue_.end(),
                           [&](const Job& job) { return job.request == &request; });
    if (it == queue_.end()) {
      if (running_ != &request) return Cancelled::kNotHere;
      if (!cancel_.load(std::memory_order_relaxed)) cancel_why_ = why;
      cancel_.store(true, std::memory_order_release);
      return Cancelled::kStopping;
    }
    dropped = std::move(*it);
    queue_.erase(it);
  }
  internal::RequestAccess::Complete(*dropped.request, why, 0);
  pending_.fetch_sub(1, std::memory_order_acq_rel);
  return Cancelled::kDropped;
}

bool StagingPipeline::CancelRequested(Status& why) {
  if (!cancel_.load(std::memory_order_acquire)) return false;
  std::lock_guard lock(mu_);
  why = cancel_why_;
  return true;
}

void StagingPipeline::Loop() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      job = std::move(queue_.front());
      queue_.pop_front();
      running_ = job.request;
      cancel_.store(false, std::memory_order_relaxed);
    }
    uint64_t moved = 0;
    Status status = Run(job, moved);
    {
      std::lock_guard lock(mu_);
      running_ = nullptr;
      // Cancelled after its last chunk: it moved everything, and says so.
      if (status.ok() && cancel_.load(std::memory_order_relaxed)) status = cancel_why_;
    }
    internal::RequestAccess::Complete(*job.request, status, status.ok() ? moved : 0);
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

Status StagingPipeline::Run(const Job& job, uint64_t& moved) {
  if (!wedged_.ok()) return wedged_;
  if (!job.entries.empty()) {
    XFER_RETURN_IF_ERROR(Prepare(job));
    XFER_RETURN_IF_ERROR(job.op == OpCode::kWrite ? RunWrite(job, moved) : RunRead(job, moved));
  }
  Status cancelled;
  if (CancelRequested(cancelled)) return cancelled;
  return job.notification.empty() ? Status::Ok() : SendNotification(job);
}

Status StagingPipeline::SendNotification(const Job& job) {
  const Deadline deadline = Deadline::After(io_timeout_);
  for (;;) {
    Status status = endpoint_.PostNotify(job.notification, notify_request_, job.stream);
    if (status.ok()) break;
    if (status.code() != StatusCode::kResourceExhausted) return status;
    if (deadline.expired()) {
      return Timeout(fmt::format("staging: the transport's queues stayed full for {} ms",
                                 io_timeout_.count()));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  Status sent = notify_request_.Wait(io_timeout_);
  if (sent.code() == StatusCode::kTimeout && !notify_request_.done()) {
    wedged_ = Timeout(fmt::format(
        "staging: a notification was not on its way within {} ms; this connection stages "
        "nothing more",
        io_timeout_.count()));
    return wedged_;
  }
  return sent;
}

Status StagingPipeline::Prepare(const Job& job) {
  // An offloaded request moves everything straight: it needs no slots'
  // memory.
  const bool bounces = std::any_of(job.entries.begin(), job.entries.end(),
                                   [](const StagedEntry& e) { return e.bounce; });
  if (bounces && memory_.id == 0) {
    auto memory = staging_.Allocate(kSlots * kChunkBytes, MemoryOptions{Access::kNone});
    if (!memory.ok()) return memory.status().WithContext("staging memory");
    memory_ = *memory;
    for (uint32_t i = 0; i < kSlots; ++i) {
      slots_[i].memory = static_cast<uint8_t*>(memory_.address) + i * kChunkBytes;
    }
  }
  const bool device = std::any_of(job.entries.begin(), job.entries.end(),
                                  [](const StagedEntry& e) { return e.bounce && e.device >= 0; });
  if (device && !pinned_) {
    // Without it, every device copy would go through the driver's own
    // pageable bounce at a fraction of the link's speed.
    // Idempotent: the registry pins what it holds once, and unpins it when
    // Stop deregisters it.
    XFER_RETURN_IF_ERROR(staging_.PinHostRegions().WithContext("staging memory"));
    pinned_ = true;
  }
  return Status::Ok();
}

Status StagingPipeline::RunWrite(const Job& job, uint64_t& moved) {
  ChunkCursor cursor(job.entries, max_entries_per_post_);
  Chunk chunk;
  if (!cursor.Next(chunk)) return Status::Ok();
  uint32_t slot = 0;
  if (chunk.bounce) XFER_RETURN_IF_ERROR(StartCopy(slots_[slot].memory, chunk.local, chunk.length, chunk.device));
  Status status;
  Status landed;  // the first error of a chunk's transfer, in posting order
  for (bool more = true; more && status.ok() && landed.ok();) {
    status = FinishCopies();  // chunk's bytes are in its slot
    Chunk next;
    more = cursor.Next(next);
    const uint32_t next_slot = (slot + 1) % kSlots;
    if (status.ok() && more) {
      // The oldest chunk in flight holds the next slot. The next chunk's
      // copy comes first, so that it overlaps this chunk's post.
      landed = Await(slots_[next_slot], moved);
      if (landed.ok() && next.bounce) {
        status = StartCopy(slots_[next_slot].memory, next.local, next.length, next.device);
      }
    }
    if (status.ok() && landed.ok() && CancelRequested(status)) break;
    if (status.ok() && landed.ok()) status = Post(OpCode::kWrite, chunk, slots_[slot], job.stream);
    chunk = std::move(next);
    slot = next_slot;
  }
  Status finished = FinishCopies();  // no copy may outlive the request
  if (status.ok()) status = finished;
  return FirstFailure(landed, status, moved);
}

Status StagingPipeline::FirstFailure(const Status& landed, const Status& local, uint64_t& moved) {
  // Chunks still in flight were posted before whatever failed locally (a
  // post the transport refused, a copy), and a transport that fails its
  // connection on a refusal (verbs) refuses every later post for the
  // earlier chunk's fault: their error is the cause.
  Status drained = Drain(moved);
  if (!landed.ok()) return landed;
  if (!drained.ok()) return drained;
  return local;
}

Status StagingPipeline::RunRead(const Job& job, uint64_t& moved) {
  ChunkCursor cursor(job.entries, max_entries_per_post_);
  Chunk posted[kSlots];
  Status status;
  Status landed;  // the first error of a chunk's transfer, in posting order
  for (uint32_t first = 0; first < kSlots && status.ok(); ++first) {
    if (!cursor.Next(posted[first])) break;
    status = Post(OpCode::kRead, posted[first], slots_[first], job.stream);
  }
  // The oldest chunk in flight is in `slot`.
  for (uint32_t slot = 0; status.ok() && slots_[slot].length != 0; slot = (slot + 1) % kSlots) {
    const Chunk chunk = posted[slot];
    uint64_t bytes = 0;
    landed = Await(slots_[slot], bytes);
    if (!landed.ok() || CancelRequested(status)) break;
    if (chunk.bounce) {
      status = StartCopy(chunk.local, slots_[slot].memory, chunk.length, chunk.device);
      if (status.ok()) status = FinishCopies();
    }
    if (!status.ok()) break;
    moved += bytes;
    if (cursor.Next(posted[slot])) status = Post(OpCode::kRead, posted[slot], slots_[slot], job.stream);
  }
  return FirstFailure(landed, status, moved);
}

Status StagingPipeline::Post(OpCode op, const Chunk& chunk, Slot& slot, uint32_t stream) {
  const TransferEntry entry{chunk.bounce ? slot.memory : chunk.local, chunk.remote,
                            static_cast<size_t>(chunk.length)};
  const std::span<const TransferEntry> one =
      chunk.pieces.empty() ? std::span<const TransferEntry>(&entry, 1)
                           : std::span<const TransferEntry>(chunk.pieces);
  const Deadline deadline = Deadline::After(io_timeout_);
  for (;;) {
    Status status = op == OpCode::kWrite ? endpoint_.PostWrite(one, slot.request, stream)
                                         : endpoint_.PostRead(one, slot.request, stream);
    if (status.ok()) {
      slot.length = chunk.length;
      slot.seq = next_seq_++;
      return status;
    }
    if (status.code() != StatusCode::kResourceExhausted) return status;
    // The transport's queues are full (of our own chunks, or of the
    // connection's direct requests): wait for room, as any caller does.
    if (deadline.expired()) {
      return Timeout(fmt::format("staging: the transport's queues stayed full for {} ms",
                                 io_timeout_.count()));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

Status StagingPipeline::Await(Slot& slot, uint64_t& moved) {
  if (slot.length == 0) return Status::Ok();
  // A chunk that outlived io_timeout once is not waited for again: it ends
  // when the endpoint closes.
  if (!wedged_.ok() && !slot.request.done()) return wedged_;
  Status status = slot.request.Wait(io_timeout_);
  if (status.code() == StatusCode::kTimeout && !slot.request.done()) {
    wedged_ = Timeout(fmt::format(
        "staging: a {}-byte chunk's transfer did not complete within {} ms; this connection "
        "stages nothing more",
        slot.length, io_timeout_.count()));
    return wedged_;
  }
  if (status.ok()) moved += slot.length;
  slot.length = 0;
  return status;
}

Status StagingPipeline::Drain(uint64_t& moved) {
  // In posting order, so that the first error found is the earliest chunk's.
  std::array<Slot*, kSlots> order;
  for (uint32_t i = 0; i < kSlots; ++i) order[i] = &slots_[i];
  std::sort(order.begin(), order.end(), [](const Slot* a, const Slot* b) { return a->seq < b->seq; });
  Status first;
  for (Slot* slot : order) {
    Status status = Await(*slot, moved);
    if (first.ok()) first = status;
  }
  return first;
}

Status StagingPipeline::StartCopy(void* destination, const void* source, uint64_t length,
                                  int device) {
  if (device < 0) {
    std::memcpy(destination, source, length);
    return Status::Ok();
  }
  auto stream = streams_.For(device);
  if (!stream.ok()) return stream.status().WithContext("staging");
  if (copying_ != nullptr && copying_ != *stream) XFER_RETURN_IF_ERROR(FinishCopies());
  copying_ = *stream;
  return copying_->Start(destination, source, length).WithContext("staging: device copy");
}

Status StagingPipeline::FinishCopies() {
  if (copying_ == nullptr) return Status::Ok();
  cuda::CopyStream* stream = copying_;
  copying_ = nullptr;
  return stream->Finish().WithContext("staging: device copy");
}

}  // namespace xfer::core
