#include "transport/tcp/connection.h"

#include <utility>

#include "transport/local_device.h"

namespace xfer::transport::tcp {

Connection::Connection(StreamSockets sockets, const LocalMemory* local,
                       cuda::DeviceRuntime& devices, NotificationSink& notifications,
                       std::chrono::milliseconds io_timeout)
    : incoming_(std::move(sockets.incoming)),
      local_(local),
      devices_(devices),
      notifications_(notifications),
      gpu_host_(devices.Available().ok()),
      io_timeout_(io_timeout) {
  for (auto& socket : sockets.outgoing) {
    outgoing_.push_back(std::make_unique<OutgoingStream>(std::move(socket), devices));
  }
}

int Connection::DeviceOf(const void* address, uint64_t length) const {
  return gpu_host_ ? LocalDeviceOf(*local_, devices_, address, length) : -1;
}

void Connection::Fail(const Status& reason) {
  {
    std::lock_guard lock(reason_mu_);
    if (closed_.load(std::memory_order_relaxed)) return;
    reason_ = reason.ok() ? Internal("tcp connection failed without a reason") : reason;
    closed_.store(true, std::memory_order_release);
  }
  recv_queue_.Close();
  // shutdown() leaves the descriptors valid for threads still inside a
  // call on them; they see EOF or EPIPE and return.
  for (auto& out : outgoing_) out->socket.Shutdown();
  for (auto& socket : incoming_) socket.Shutdown();
}

void Connection::FailLocally(const Status& reason) {
  {
    std::lock_guard lock(reason_mu_);
    if (!closed_.load(std::memory_order_relaxed)) {
      closed_locally_.store(true, std::memory_order_release);
    }
  }
  Fail(reason);
}

void Connection::AbortOnClose() {
  for (auto& out : outgoing_) out->socket.AbortOnClose();
  for (auto& socket : incoming_) socket.AbortOnClose();
}

Status Connection::reason() const {
  std::lock_guard lock(reason_mu_);
  return reason_;
}

Status Connection::ClosedError() const {
  return ConnectionLost("tcp connection is closed (" + reason().ToString() + ")");
}

}  // namespace xfer::transport::tcp
