// Running engine calls with the GIL released.
#ifndef XFER_PYTHON_GIL_H_
#define XFER_PYTHON_GIL_H_

#include <pybind11/pybind11.h>

#include <utility>

namespace xfer::python {

// Returns call() run with the GIL released, for every call into the engine
// that may block (it then takes no Python object: only C++ values).
// REQUIRES: the GIL is held; `call` touches no Python object.
template <typename Call>
auto WithoutGil(Call&& call) {
  pybind11::gil_scoped_release nogil;
  return std::forward<Call>(call)();
}

}  // namespace xfer::python

#endif  // XFER_PYTHON_GIL_H_
