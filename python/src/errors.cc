#include "errors.h"

namespace py = pybind11;

namespace xfer::python {
namespace {

// xfer.Error, created once at import and owned by the module for the life
// of the process (extension modules are never unloaded).
PyObject* error_type = nullptr;

constexpr const char* kErrorDoc =
    "The one exception libxfer raises for a failed operation.\n\n"
    "Attributes:\n"
    "  code (StatusCode): what kind of failure, e.g. StatusCode.OUT_OF_RANGE.\n"
    "  message (str): what went wrong, naming the peer, region or address.\n\n"
    "str(error) is '<code name>: <message>', as xfer::Status::ToString() gives.";

}  // namespace

void SetPythonError(const Status& status) {
  // The instance is built here rather than by PyErr_SetString so that its
  // attributes are set before any handler can see it.
  py::object type = py::reinterpret_borrow<py::object>(error_type);
  py::object error = type(status.ToString());
  error.attr("code") = py::cast(status.code());
  error.attr("message") = py::str(status.message());
  PyErr_SetObject(error_type, error.ptr());
}

void BindErrors(py::module_& module) {
  // Class-level defaults: an Error raised by Python code itself
  // (xfer.Error("...")) has both attributes, as None, since no libxfer
  // status stands behind it.
  py::dict defaults;
  defaults["code"] = py::none();
  defaults["message"] = py::none();
  error_type = PyErr_NewExceptionWithDoc("xfer.Error", kErrorDoc, PyExc_Exception, defaults.ptr());
  if (error_type == nullptr) throw py::error_already_set();
  module.add_object("Error", py::reinterpret_borrow<py::object>(error_type));

  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const StatusError& e) {
      try {
        SetPythonError(e.status());
      } catch (py::error_already_set& failed) {
        failed.restore();  // building the exception failed (out of memory): raise that
      }
    }
  });
}

}  // namespace xfer::python
