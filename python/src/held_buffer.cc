#include "held_buffer.h"

#include <fmt/format.h>

#include "errors.h"

namespace py = pybind11;

namespace xfer::python {

void HeldBuffer::Release::operator()(Py_buffer* view) const {
  PyBuffer_Release(view);
  delete view;
}

HeldBuffer HeldBuffer::Acquire(py::handle object) {
  const char* type_name = Py_TYPE(object.ptr())->tp_name;
  if (PyObject_CheckBuffer(object.ptr()) == 0) {
    throw py::type_error(fmt::format(
        "register() needs an object exporting a writable buffer (bytearray, memoryview, numpy "
        "array, ...), not '{}'",
        type_name));
  }
  auto view = std::unique_ptr<Py_buffer, Release>(new Py_buffer{});
  if (PyObject_GetBuffer(object.ptr(), view.get(), PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) {
    // Not acquired: the deleter must not release it.
    delete view.release();
    const py::error_already_set refused;  // fetches and clears the exporter's error
    throw StatusError(InvalidArgument(fmt::format(
        "cannot register a '{}' object: it does not export a writable, C-contiguous buffer ({})",
        type_name, refused.what())));
  }
  HeldBuffer held;
  held.view_ = std::move(view);
  return held;
}

}  // namespace xfer::python
