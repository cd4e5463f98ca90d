// Whether one verbs connection is alive, and if not, why it died: the
// single fact every posting thread and the completion thread consult.
#ifndef XFER_TRANSPORT_VERBS_CONNECTION_STATE_H_
#define XFER_TRANSPORT_VERBS_CONNECTION_STATE_H_

#include <atomic>
#include <mutex>
#include <string>

#include "xfer/status.h"

namespace xfer::transport::verbs {

// Thread-safe.
class ConnectionState {
 public:
  // Records `reason` and returns true for the first call; later calls
  // change nothing and return false.
  bool Fail(const Status& reason) {
    std::lock_guard lock(mu_);
    if (closed_.load(std::memory_order_relaxed)) return false;
    reason_ = reason.ok() ? Internal("verbs connection failed without a reason") : reason;
    closed_.store(true, std::memory_order_release);
    return true;
  }

  bool closed() const { return closed_.load(std::memory_order_acquire); }

  // Why the connection died, with its code. REQUIRES: closed().
  Status reason() const {
    std::lock_guard lock(mu_);
    return reason_;
  }

  // What a post made after the connection died returns: kConnectionLost
  // naming the reason.
  Status ClosedError() const {
    return ConnectionLost("verbs connection is closed (" + reason().ToString() + ")");
  }

 private:
  mutable std::mutex mu_;
  Status reason_;  // GUARDED_BY(mu_)
  std::atomic<bool> closed_{false};
};

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_CONNECTION_STATE_H_
