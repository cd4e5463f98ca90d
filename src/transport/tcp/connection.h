// The state one tcp endpoint shares between its posting threads, its
// completer thread and its responder thread, and the single way it dies.
#ifndef XFER_TRANSPORT_TCP_CONNECTION_H_
#define XFER_TRANSPORT_TCP_CONNECTION_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "common/socket.h"
#include "cuda/device_runtime.h"
#include "transport/local_memory.h"
#include "transport/notification_sink.h"
#include "transport/fifo_ring.h"
#include "transport/tcp/device_staging.h"
#include "transport/tcp/frame.h"
#include "transport/tcp/recv_queue.h"
#include "transport/tcp/stream_setup.h"
#include "xfer/status.h"
#include "xfer/transfer.h"

namespace xfer::transport::tcp {

// One frame sent on an outgoing socket and still waiting for its response.
// Whoever pops it from the FIFO finishes its part of `request`, exactly once.
struct InflightOp {
  TransferRequest* request = nullptr;
  uint8_t* local = nullptr;  // READ: where READ_DATA lands; WRITE: the source
  uint64_t remote = 0;
  uint64_t length = 0;
  uint64_t id = 0;
  FrameType type = FrameType::kWrite;  // kWrite or kRead
  int local_device = -1;  // `local` is CUDA memory on this device; -1: host memory
};

// A socket we opened: posting threads write requests, the completer reads
// the responses.
struct OutgoingStream {
  OutgoingStream(Socket s, cuda::DeviceRuntime& devices)
      : socket(std::move(s)), staging(devices) {}

  Socket socket;
  DeviceStaging staging;  // GUARDED_BY(send_mu): WRITE payloads from device memory
  // Serialises whole frames on the socket and orders FIFO pushes with them.
  // Held across blocking sends, so the completer never takes it while the
  // connection is alive (see Completer).
  std::mutex send_mu;
  uint64_t next_id = 1;  // GUARDED_BY(send_mu)
  // Short critical sections only: push by posters, pop by the completer.
  std::mutex fifo_mu;
  FifoRing<InflightOp> fifo{1024};  // GUARDED_BY(fifo_mu); in wire order
  // NowNs() when a frame on this socket was last fully sent or the FIFO
  // went from empty to non-empty: the start of the current wait for the
  // peer, for the completer's timeout check.
  std::atomic<uint64_t> last_progress_ns{0};
};

// Thread-safe.
class Connection {
 public:
  // Takes the sockets; `local`, `devices` and `notifications` must outlive
  // the connection.
  Connection(StreamSockets sockets, const LocalMemory* local, cuda::DeviceRuntime& devices,
             NotificationSink& notifications, std::chrono::milliseconds io_timeout);

  // Kills the connection: records `reason` (the first one wins), refuses
  // new receives, and shuts every socket down so that blocked threads wake
  // and the peer sees EOF. Idempotent; callable from any thread, including
  // the completer and responder. In-flight work is failed by the threads
  // that own it as they exit.
  void Fail(const Status& reason);
  // Fail() for this side's own Close: progress stops at once, and nothing
  // the peer had sent is served after it.
  void FailLocally(const Status& reason);

  // Makes every socket's close abortive (Socket::AbortOnClose): what is
  // still queued for the peer is dropped, never delivered later. Before
  // Fail(), whose shutdown would otherwise queue a FIN behind the data.
  void AbortOnClose();

  bool closed() const { return closed_.load(std::memory_order_acquire); }
  // Whether it was this side's Close that killed it. REQUIRES: closed().
  bool closed_locally() const { return closed_locally_.load(std::memory_order_acquire); }

  // Why the connection died, with its code (kConnectionLost, kTimeout,
  // kProtocolError, ...). REQUIRES: closed().
  Status reason() const;

  // What a post made after the connection died returns.
  Status ClosedError() const;

  std::vector<std::unique_ptr<OutgoingStream>>& outgoing() { return outgoing_; }
  std::vector<Socket>& incoming() { return incoming_; }
  RecvQueue& recv_queue() { return recv_queue_; }
  const LocalMemory& local() const { return *local_; }
  cuda::DeviceRuntime& devices() const { return devices_; }
  NotificationSink& notifications() const { return notifications_; }
  // The CUDA device of local memory [address, +length), or -1 for host
  // memory; -1 without asking anyone on a host with no usable GPU.
  int DeviceOf(const void* address, uint64_t length) const;
  std::chrono::milliseconds io_timeout() const { return io_timeout_; }

 private:
  std::vector<std::unique_ptr<OutgoingStream>> outgoing_;
  std::vector<Socket> incoming_;  // used by the responder thread only
  RecvQueue recv_queue_;
  const LocalMemory* local_;
  cuda::DeviceRuntime& devices_;
  NotificationSink& notifications_;
  const bool gpu_host_;
  const std::chrono::milliseconds io_timeout_;

  std::atomic<bool> closed_{false};
  std::atomic<bool> closed_locally_{false};  // set before closed_, by FailLocally
  mutable std::mutex reason_mu_;
  Status reason_;  // GUARDED_BY(reason_mu_)
};

}  // namespace xfer::transport::tcp

#endif  // XFER_TRANSPORT_TCP_CONNECTION_H_
