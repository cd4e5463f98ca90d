// Running engine calls with the GIL released.
#ifndef XFER_PYTHON_GIL_H_
#define XFER_PYTHON_GIL_H_

#include <pybind11/pybind11.h>

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "xfer/engine.h"
#include "xfer/status.h"
#include "xfer/transfer.h"

namespace xfer::python {

// Returns call() run with the GIL released, for every call into the engine
// that may block (it then takes no Python object: only C++ values).
// REQUIRES: the GIL is held; `call` touches no Python object.
template <typename Call>
auto WithoutGil(Call&& call) {
  pybind11::gil_scoped_release nogil;
  return std::forward<Call>(call)();
}

// How long a blocking call goes without running Python's signal handlers:
// Ctrl-C raises KeyboardInterrupt within this (issue 27, defect 7).
inline constexpr std::chrono::milliseconds kSignalSlice{100};

inline StatusCode CodeOf(const Status& status) { return status.code(); }
template <typename T>
StatusCode CodeOf(const Result<T>& result) {
  return result.ok() ? StatusCode::kOk : result.status().code();
}

// For a wait that may block long: `wait(slice)` runs with the GIL released
// for slices of at most kSignalSlice, until it returns something other than
// kTimeout or `timeout` has passed (then its last result is returned).
// Between slices Python's signal handlers run; when one raises
// (KeyboardInterrupt), `interrupted()` runs with the GIL released, to undo
// what the wait was for, and the Python error propagates.
// REQUIRES: the GIL is held; neither call touches a Python object.
template <typename Wait, typename Interrupted>
auto WaitCheckingSignals(std::chrono::nanoseconds timeout, Wait&& wait, Interrupted&& interrupted)
    -> decltype(wait(std::chrono::nanoseconds{})) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + timeout;
  for (;;) {
    const auto left = std::max<std::chrono::nanoseconds>(deadline - Clock::now(), {});
    auto result = WithoutGil([&] { return wait(std::min<std::chrono::nanoseconds>(left, kSignalSlice)); });
    if (CodeOf(result) != StatusCode::kTimeout || Clock::now() >= deadline) return result;
    if (PyErr_CheckSignals() != 0) {
      WithoutGil(interrupted);
      throw pybind11::error_already_set();
    }
  }
}

// One wait on a TransferRequest: its final status once done (kTimeout
// included: the request's own deadline passed), or not done yet.
struct RequestWait {
  Status status;
  bool done = false;
};
inline StatusCode CodeOf(const RequestWait& wait) {
  return wait.done ? StatusCode::kOk : StatusCode::kTimeout;
}

// One slice of a wait for notifications: empty reads as not yet.
struct NotificationWait {
  std::vector<Notification> notifications;
};
inline StatusCode CodeOf(const NotificationWait& wait) {
  return wait.notifications.empty() ? StatusCode::kTimeout : StatusCode::kOk;
}

// WaitCheckingSignals for a request: ends when the request is done, with
// its final status, or at `timeout` with kTimeout while it is not.
template <typename Interrupted>
Status WaitForRequest(const TransferRequest& request, std::chrono::nanoseconds timeout,
                      Interrupted&& interrupted) {
  const RequestWait waited = WaitCheckingSignals(
      timeout,
      [&](std::chrono::nanoseconds slice) {
        Status status = request.Wait(slice);
        return RequestWait{std::move(status), request.done()};
      },
      std::forward<Interrupted>(interrupted));
  return waited.status;
}

}  // namespace xfer::python

#endif  // XFER_PYTHON_GIL_H_
