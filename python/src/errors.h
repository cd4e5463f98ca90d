// How libxfer's Status values reach Python: as one exception type,
// xfer.Error, carrying the status code and message.
#ifndef XFER_PYTHON_ERRORS_H_
#define XFER_PYTHON_ERRORS_H_

#include <pybind11/pybind11.h>

#include <exception>
#include <string>
#include <utility>

#include "xfer/status.h"

namespace xfer::python {

// The C++ side of xfer.Error: thrown by binding code, translated into
// xfer.Error (with .code and .message set) when it crosses into Python.
class StatusError : public std::exception {
 public:
  explicit StatusError(Status status) : status_(std::move(status)), what_(status_.ToString()) {}
  const Status& status() const { return status_; }
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  Status status_;
  std::string what_;
};

// Throws StatusError unless `status` is OK.
inline void ThrowIfError(const Status& status) {
  if (!status.ok()) throw StatusError(status);
}

// The value of `result`, or throws StatusError with its error.
template <typename T>
T ValueOrThrow(Result<T> result) {
  if (!result.ok()) throw StatusError(result.status());
  return std::move(result).value();
}

// Makes xfer.Error for `status` the pending Python exception, for C-level
// callbacks (the buffer protocol) that report failure by return value and
// must not throw. REQUIRES: the GIL is held; `status` is not OK.
void SetPythonError(const Status& status);

// Creates xfer.Error in `module` and installs the StatusError translator.
// REQUIRES: xfer.StatusCode is already bound (the exception's .code is one).
void BindErrors(pybind11::module_& module);

}  // namespace xfer::python

#endif  // XFER_PYTHON_ERRORS_H_
