// A transport's setup waits on sockets of its own (a Unix rendezvous, the
// tcp data-stream listener) while the peer's death shows only on the
// engine's control connection. Waiting in slices and looking at the control
// connection between them reports a dead peer at once instead of at the
// setup deadline.
#ifndef XFER_TRANSPORT_CONTROL_WATCH_H_
#define XFER_TRANSPORT_CONTROL_WATCH_H_

#include <chrono>
#include <string_view>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/socket.h"
#include "xfer/status.h"

namespace xfer::transport {

// Runs `attempt(Deadline)` (returning Result<T>) with deadlines of one
// `slice` each until it succeeds, fails other than with kTimeout, or
// `deadline` passes (its last kTimeout is returned). Between slices, a
// control connection the peer has closed ends the wait with kConnectionLost
// naming `waiting_for`. An attempt cut short by its slice must be safe to
// start again (an accept, a local connect).
template <typename Attempt>
auto WhileControlOpen(const Socket& control, Deadline deadline, std::string_view waiting_for,
                      Attempt&& attempt,
                      std::chrono::milliseconds slice = std::chrono::milliseconds(20))
    -> decltype(attempt(deadline)) {
  for (;;) {
    auto result = attempt(deadline.EarlierOf(Deadline::After(slice)));
    if (result.ok() || result.status().code() != StatusCode::kTimeout || deadline.expired()) {
      return result;
    }
    if (control.PeerClosed()) {
      return ConnectionLost(
          fmt::format("the peer closed the control connection while this side waited for {}",
                      waiting_for));
    }
  }
}

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_CONTROL_WATCH_H_
