// The one length check of a notification: the engine's, for the caller's
// error before anything is posted, and every transport's Endpoint::
// PostNotify, which refuses what it cannot carry whoever calls it.
#ifndef XFER_TRANSPORT_NOTIFICATION_LENGTH_H_
#define XFER_TRANSPORT_NOTIFICATION_LENGTH_H_

#include <fmt/format.h>

#include <cstddef>

#include "xfer/status.h"
#include "xfer/transfer.h"

namespace xfer::transport {

// OK for 1..kMaxNotificationBytes bytes; else kInvalidArgument saying so.
inline Status CheckNotificationLength(size_t length) {
  if (length >= 1 && length <= kMaxNotificationBytes) return Status::Ok();
  return InvalidArgument(fmt::format("a notification holds 1 to {} bytes, not {}",
                                     kMaxNotificationBytes, length));
}

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_NOTIFICATION_LENGTH_H_
