#include "transport/shm/message_channel.h"

#include <fmt/format.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "common/request_access.h"
#include "transport/shm/frame.h"

namespace xfer::transport::shm {
namespace {

// Each chunk of a large payload gets a fresh io_timeout, so the timeout
// bounds a stall, not the time a large message takes.
constexpr uint64_t kChunkBytes = uint64_t{4} << 20;
constexpr size_t kScratchBytes = size_t{64} << 10;

Status ConnectionClosed() { return ConnectionLost("shm endpoint closed"); }

}  // namespace

MessageChannel::MessageChannel(Socket socket, std::chrono::milliseconds io_timeout,
                               std::shared_ptr<InboundRing> notifications)
    : io_timeout_(io_timeout),
      notifications_(std::move(notifications)),
      socket_(std::move(socket)),
      scratch_(kScratchBytes) {}

MessageChannel::~MessageChannel() { Close(); }

Status MessageChannel::Start() {
  try {
    progress_ = std::thread(&MessageChannel::Run, this);
  } catch (const std::system_error& e) {
    return ResourceExhausted(std::string("shm: cannot start the progress thread: ") + e.what());
  }
  return Status::Ok();
}

Status MessageChannel::failure() const {
  std::lock_guard lock(mu_);
  return failure_;
}

bool MessageChannel::MarkFailed(const Status& why) {
  bool first = false;
  {
    std::lock_guard lock(mu_);
    first = !broken_.load(std::memory_order_relaxed);
    if (failure_.ok()) failure_ = closing_ ? ConnectionClosed() : why;
    broken_.store(true, std::memory_order_release);
  }
  cv_.notify_all();
  return first;
}

void MessageChannel::Fail(const Status& why) {
  MarkFailed(why);
  socket_.Shutdown();
}

void MessageChannel::Close() {
  {
    std::lock_guard lock(mu_);
    if (closing_) return;
    closing_ = true;
  }
  Fail(ConnectionClosed());
  if (progress_.joinable()) progress_.join();
  std::vector<PostedRecv> orphans;
  {
    std::lock_guard lock(mu_);
    orphans = recvs_.TakeAll();  // non-empty only if Start() never ran
  }
  for (const PostedRecv& r : orphans) internal::RequestAccess::Complete(*r.request, failure(), 0);
  // PostSend writes only under send_mu_ and checks broken_ first, so once we
  // hold it no one touches the descriptor again.
  std::lock_guard send_lock(send_mu_);
  socket_.Close();
}

// The progress thread. Only it completes posted receives (Close() takes over
// once it has been joined), so a receive is never completed twice.
void MessageChannel::Run() {
  bool peer_aborted = false;
  Status why = ReadFrames(peer_aborted);
  // What the peer published before it went (or before this side failed)
  // stays readable; a ring that fails now has nothing more to give.
  (void)notifications_->Drain();
  // Tell the peer why, unless it told us, is gone, or someone else already
  // failed the connection (maybe mid-frame): its posts then report our
  // reason (say, no receive posted) rather than a bare EOF.
  // Broken before the peer can hear of it: once the peer reads our abort,
  // every post on this side already fails.
  const bool first = MarkFailed(why);
  if (first && !peer_aborted && why.code() != StatusCode::kConnectionLost) SendAbort(why);
  socket_.Shutdown();
  std::vector<PostedRecv> failed;
  {
    std::lock_guard lock(mu_);
    failed = recvs_.TakeAll();  // broken_ is set: nothing joins the queue now
  }
  const Status final_status = failure();
  for (const PostedRecv& r : failed) {
    internal::RequestAccess::Complete(*r.request, final_status, 0);
  }
}

Status MessageChannel::ReadFrames(bool& peer_aborted) {
  for (;;) {
    // Waiting for the next frame has no deadline: an idle connection is not
    // a dead one. A dead peer's socket is closed by its kernel (EOF), and
    // Close() shuts ours down; both wake this poll.
    pollfd pfd{socket_.fd(), POLLIN, 0};
    if (::poll(&pfd, 1, -1) < 0) {
      if (errno == EINTR) continue;
      return IoError(ErrnoMessage("shm: poll", errno));
    }
    FrameHeader header{};
    Status got = socket_.RecvAll(&header, sizeof(header), Deadline::After(io_timeout_));
    if (!got.ok()) return got.WithContext("shm: reading a frame header");
    // A peer that sent an abort, even a malformed one, hears none back.
    peer_aborted = header.magic == kFrameMagic && header.type == kFrameAbort;
    XFER_RETURN_IF_ERROR(CheckFrameHeader(header));
    if (peer_aborted) return ReadAbort(header.length);
    XFER_RETURN_IF_ERROR(header.type == kFrameDoorbell ? notifications_->Drain()
                                                       : Deliver(header.length));
  }
}

// Lands one message in the oldest posted receive, reading the payload
// straight into the caller's buffer: no intermediate copy.
Status MessageChannel::Deliver(uint64_t length) {
  PostedRecv recv;
  {
    std::unique_lock lock(mu_);
    const bool ready = cv_.wait_for(lock, io_timeout_, [this] {
      return !recvs_.empty() || broken_.load(std::memory_order_relaxed);
    });
    if (broken_.load(std::memory_order_relaxed)) return failure_;
    if (!ready) {
      return Timeout(
          fmt::format("shm: a {}-byte message arrived and no receive was posted within {} ms",
                      length, io_timeout_.count()));
    }
    recv = recvs_.front();  // stays queued until completed, so Fail can find it
  }
  Status landed;
  uint64_t bytes = 0;
  if (length > recv.capacity) {
    XFER_RETURN_IF_ERROR(Drain(length));
    landed = InvalidArgument(
        fmt::format("shm: a {}-byte message does not fit the posted {}-byte receive; dropped",
                    length, recv.capacity));
  } else {
    XFER_RETURN_IF_ERROR(ReadChunked(recv.buffer, length));
    bytes = length;
  }
  {
    std::lock_guard lock(mu_);
    recvs_.pop_front();
  }
  internal::RequestAccess::Complete(*recv.request, landed, static_cast<size_t>(bytes));
  return Status::Ok();
}

Status MessageChannel::ReadChunked(void* buffer, uint64_t length) {
  auto* out = static_cast<uint8_t*>(buffer);
  for (uint64_t done = 0; done < length;) {
    const auto n = static_cast<size_t>(std::min(kChunkBytes, length - done));
    Status got = socket_.RecvAll(out + done, n, Deadline::After(io_timeout_));
    if (!got.ok()) return got.WithContext("shm: reading a message");
    done += n;
  }
  return Status::Ok();
}

Status MessageChannel::Drain(uint64_t length) {
  for (uint64_t done = 0; done < length;) {
    const auto n = static_cast<size_t>(std::min<uint64_t>(scratch_.size(), length - done));
    Status got = socket_.RecvAll(scratch_.data(), n, Deadline::After(io_timeout_));
    if (!got.ok()) return got.WithContext("shm: dropping an oversized message");
    done += n;
  }
  return Status::Ok();
}

// REQUIRES: CheckFrameHeader accepted the frame, which bounds `length`.
Status MessageChannel::ReadAbort(uint64_t length) {
  uint8_t body[sizeof(uint32_t) + kMaxAbortText];
  XFER_RETURN_IF_ERROR(ReadChunked(body, length));
  Status peer_failure;
  XFER_RETURN_IF_ERROR(
      DecodeAbortBody(std::span<const uint8_t>(body, static_cast<size_t>(length)), peer_failure));
  return Status(peer_failure.code(), "shm: the peer failed the connection: " + peer_failure.message());
}

// Best effort and never blocking: the connection is being torn down anyway.
// A writer holding send_mu_ means a frame may be half written, and our
// abort would land inside it, so then the peer just sees EOF.
void MessageChannel::SendAbort(const Status& why) {
  std::unique_lock send_lock(send_mu_, std::try_to_lock);
  if (send_lock.owns_lock()) SendAbortLocked(why);
}

void MessageChannel::SendAbortLocked(const Status& why) {
  std::vector<uint8_t> body = EncodeAbortBody(why);
  FrameHeader header{kFrameMagic, kFrameAbort, body.size()};
  iovec iov[2] = {{&header, sizeof(header)}, {body.data(), body.size()}};
  (void)socket_.SendAllv(iov, Deadline::After(std::chrono::milliseconds(0)));
}

Status MessageChannel::WriteFrame(uint32_t type, const void* data, uint64_t length) {
  FrameHeader header{kFrameMagic, type, length};
  auto* bytes = static_cast<uint8_t*>(const_cast<void*>(data));
  const auto first = static_cast<size_t>(std::min(kChunkBytes, length));
  iovec iov[2] = {{&header, sizeof(header)}, {bytes, first}};
  XFER_RETURN_IF_ERROR(socket_.SendAllv(iov, Deadline::After(io_timeout_)));
  for (uint64_t done = first; done < length;) {
    const auto n = static_cast<size_t>(std::min(kChunkBytes, length - done));
    XFER_RETURN_IF_ERROR(socket_.SendAll(bytes + done, n, Deadline::After(io_timeout_)));
    done += n;
  }
  return Status::Ok();
}

Status MessageChannel::PostSend(const void* data, size_t length, TransferRequest& request) {
  if (length > kMaxMessageBytes) {
    return InvalidArgument(
        fmt::format("shm: a {}-byte message exceeds the {}-byte limit", length, kMaxMessageBytes));
  }
  std::lock_guard send_lock(send_mu_);
  if (broken()) return failure();
  internal::RequestAccess::Start(request, 1);
  Status sent = WriteFrameLocked(kFrameSend, data, length);
  internal::RequestAccess::Complete(request, sent, sent.ok() ? length : 0);
  return Status::Ok();
}

Status MessageChannel::RingDoorbell() {
  std::lock_guard send_lock(send_mu_);
  if (broken()) return failure();
  return WriteFrameLocked(kFrameDoorbell, nullptr, 0);
}

void MessageChannel::Break(const Status& why) {
  // Held, the descriptor stays open (Close takes send_mu_ to close it), and
  // no frame is half written where the abort goes.
  std::lock_guard send_lock(send_mu_);
  if (!MarkFailed(why)) return;
  SendAbortLocked(why);
  socket_.Shutdown();
}

Status MessageChannel::WriteFrameLocked(uint32_t type, const void* data, size_t length) {
  Status sent = WriteFrame(type, data, length);
  if (sent.ok()) return sent;
  // A frame may be half written: the stream is unusable from here on.
  sent = sent.WithContext(type == kFrameDoorbell ? "shm: ringing the notification doorbell"
                                                 : "shm: sending a message");
  Fail(sent);
  return sent;
}

Status MessageChannel::PostRecv(void* buffer, size_t capacity, TransferRequest& request) {
  {
    std::lock_guard lock(mu_);
    if (broken_.load(std::memory_order_relaxed)) return failure_;
    internal::RequestAccess::Start(request, 1);
    recvs_.push_back(PostedRecv{buffer, capacity, &request});
  }
  cv_.notify_one();
  return Status::Ok();
}

}  // namespace xfer::transport::shm
