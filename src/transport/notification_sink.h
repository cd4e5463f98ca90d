// Where a transport hands the notifications its peer sends (Engine::Notify,
// SubmitOptions::notification): the engine's per-connection inbox.
#ifndef XFER_TRANSPORT_NOTIFICATION_SINK_H_
#define XFER_TRANSPORT_NOTIFICATION_SINK_H_

#include <cstdint>
#include <span>

#include "xfer/status.h"

namespace xfer::transport {

class NotificationSink {
 public:
  virtual ~NotificationSink() = default;

  // One notification, whole, in the order the peer posted them on its
  // stream. Copies the bytes. Called from the transport's receiving thread;
  // never blocks. The transport has checked the length (at most
  // kMaxNotificationBytes) and nothing else: the bytes are the peer's.
  // Errors: kResourceExhausted when the application has left too many
  // notifications of this peer unread; the transport then fails the
  // connection with it, as RDMA fails a queue pair its receiver does not
  // drain.
  virtual Status Deliver(std::span<const uint8_t> message) = 0;
};

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_NOTIFICATION_SINK_H_
