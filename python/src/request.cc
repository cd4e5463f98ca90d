#include "request.h"

#include <fmt/format.h>

#include "conversions.h"
#include "errors.h"
#include "gil.h"

namespace py = pybind11;

namespace xfer::python {

bool Request::Test() const {
  const Status status = operation_->request.Test();
  if (status.code() == StatusCode::kInProgress) return false;
  ThrowIfError(status);
  return true;
}

size_t Request::Wait(double timeout_seconds) const {
  const auto timeout = SecondsToNanoseconds(timeout_seconds, "timeout");
  // Ctrl-C raises KeyboardInterrupt and leaves the request in flight: the
  // engine keeps the operation until it finishes (see the class comment).
  ThrowIfError(WaitForRequest(operation_->request, timeout, [] {}));
  return bytes();
}

void BindRequest(py::module_& module) {
  py::class_<Request>(module, "Request", py::is_final(),
                      "The completion handle of one asynchronous operation. Dropping it while\n"
                      "the operation is in flight is safe: the engine keeps the operation (and\n"
                      "the registrations it uses) until it finishes.")
      .def("test", &Request::Test,
           "Polls without blocking: False while in flight, True once finished OK.\n"
           "Raises xfer.Error with the final status if the operation failed.")
      .def("wait", &Request::Wait, py::arg("timeout") = 10.0,
           "Blocks, with the GIL released, until the operation finishes or `timeout`\n"
           "seconds (float) pass. Returns the bytes moved (int). Raises xfer.Error on\n"
           "failure, including TIMEOUT, after which the operation stays in flight:\n"
           "wait again, or disconnect the peer (which fails it with CONNECTION_LOST).\n"
           "ValueError for a negative or non-finite timeout.")
      .def_property_readonly(
          "status", [](const Request& r) { return r.status().code(); },
          "StatusCode: IN_PROGRESS while in flight, then OK or the first error.")
      .def_property_readonly(
          "error_message", [](const Request& r) { return r.status().message(); },
          "The failure's message (str); '' while in flight or after success.")
      .def_property_readonly("done", &Request::done, "True once finished, successfully or not.")
      .def_property_readonly("bytes", &Request::bytes,
                             "Bytes moved by the finished operation (int): the batch total for "
                             "READ/WRITE and send, the received length for a receive.")
      .def("__repr__", [](const Request& r) {
        return fmt::format("xfer.Request(status={}, bytes={})", StatusCodeName(r.status().code()),
                           r.bytes());
      });
}

}  // namespace xfer::python
