// Two-sided messaging of an shm connection: framed sends over the Unix
// stream socket, landed by a progress thread straight into posted receives;
// and the doorbell of the connection's notification ring, on which the
// progress thread drains the ring (notification_ring.h).
#ifndef XFER_TRANSPORT_SHM_MESSAGE_CHANNEL_H_
#define XFER_TRANSPORT_SHM_MESSAGE_CHANNEL_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/socket.h"
#include "transport/shm/frame.h"
#include "transport/shm/notification_ring.h"
#include "transport/shm/recv_queue.h"
#include "xfer/status.h"
#include "xfer/transfer.h"

namespace xfer::transport::shm {

// Owns the connection's Unix socket. The socket also tells us when the peer
// dies: the kernel closes it with the process, and the progress thread sees
// EOF.
//
// Semantics follow RDMA's reliable-connected SEND: a message fills the
// oldest posted receive; with none posted, the receiver waits io_timeout for
// one and then fails the connection with kTimeout (RNR retries exhausted).
// A message longer than that receive fails the receive with
// kInvalidArgument and is dropped; the connection survives. Once the
// connection has failed, every post returns the first failure (kConnectionLost
// for EOF or Close, kTimeout, kProtocolError for garbage from the peer) and
// posted receives complete with it.
//
// Thread-safety: PostSend, PostRecv, broken() and failure() may be called
// concurrently from any threads; Close() may race with them.
class MessageChannel {
 public:
  // Takes the connected socket. `io_timeout` bounds each blocking step: a
  // stalled read or write of a frame, and the wait for a receive to land a
  // message in. `notifications` is this side's ring, drained on each of
  // the peer's doorbells and once more when the connection ends (what the
  // peer published before it went is delivered).
  MessageChannel(Socket socket, std::chrono::milliseconds io_timeout,
                 std::shared_ptr<InboundRing> notifications);
  ~MessageChannel();  // Close()
  MessageChannel(const MessageChannel&) = delete;
  MessageChannel& operator=(const MessageChannel&) = delete;

  // Starts the progress thread. Call once, before any post.
  // Errors: kResourceExhausted (no thread).
  Status Start();

  // Writes one message (blocking until it is in the socket) and completes
  // `request` with `length` bytes, or with the write's error, which also
  // fails the connection. `data` may be reused once this returns.
  // Returns an error, leaving `request` untouched, when length exceeds
  // kMaxMessageBytes (kInvalidArgument) or the connection has failed.
  Status PostSend(const void* data, size_t length, TransferRequest& request);

  // Writes a doorbell frame: the peer's progress thread drains its
  // notification ring. Errors: the connection's failure (a failure while
  // writing also fails it).
  Status RingDoorbell();

  // Fails the connection from outside the channel (its notification ring
  // stayed full, or held nonsense): the peer is told why, as of a failure
  // of the channel's own. No effect once the connection has failed.
  void Break(const Status& why);

  // Queues [buffer, buffer + capacity) for the next message; the progress
  // thread completes `request` with the message's length. Returns the
  // connection's failure, leaving `request` untouched, once it has failed.
  Status PostRecv(void* buffer, size_t capacity, TransferRequest& request);

  // True once the connection failed or was closed. Lock-free, for hot paths.
  bool broken() const { return broken_.load(std::memory_order_acquire); }

  // Why the connection failed; OK while it has not.
  Status failure() const;

  // Idempotent. Shuts the socket down (the peer sees EOF), stops the progress
  // thread, fails posted receives with kConnectionLost and closes the socket.
  // Returns promptly: every wait of the progress thread wakes on the
  // shutdown or on the condition variable, and a PostSend blocked in a write
  // fails as soon as the socket is shut down.
  void Close();

 private:
  Status ReadFrames(bool& peer_aborted);
  Status Deliver(uint64_t length);
  // Writes one frame under send_mu_; a failure fails the connection.
  // REQUIRES: send_mu_ held, the channel not broken.
  Status WriteFrameLocked(uint32_t type, const void* data, size_t length);
  Status ReadAbort(uint64_t length);
  Status ReadChunked(void* buffer, uint64_t length);
  Status Drain(uint64_t length);
  Status WriteFrame(uint32_t type, const void* data, uint64_t length);
  void SendAbort(const Status& why);
  // REQUIRES: send_mu_ held.
  void SendAbortLocked(const Status& why);
  void Run();
  // Records the failure (the first one wins) and wakes waiters; true when
  // this call broke the channel.
  bool MarkFailed(const Status& why);
  // MarkFailed, then shuts the socket down.
  // REQUIRES: the socket's fd stays open for the call: called from the
  // progress thread, from Close(), or with send_mu_ held.
  void Fail(const Status& why);

  const std::chrono::milliseconds io_timeout_;
  const std::shared_ptr<InboundRing> notifications_;
  Socket socket_;
  std::thread progress_;
  std::vector<uint8_t> scratch_;  // progress thread only: drops oversized messages

  // Serialises writers of socket_ and guards closing its fd.
  std::mutex send_mu_;

  mutable std::mutex mu_;
  std::condition_variable cv_;       // signalled on PostRecv and on failure
  RecvQueue recvs_;                  // GUARDED_BY(mu_)
  Status failure_;                   // GUARDED_BY(mu_)
  bool closing_ = false;             // GUARDED_BY(mu_)
  std::atomic<bool> broken_{false};  // written under mu_
};

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_MESSAGE_CHANNEL_H_
