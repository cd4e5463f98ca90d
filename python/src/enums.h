// The libxfer enumerations as Python enums, mirroring the C++ names:
// xfer::StatusCode::kOutOfRange is xfer.StatusCode.OUT_OF_RANGE.
#ifndef XFER_PYTHON_ENUMS_H_
#define XFER_PYTHON_ENUMS_H_

#include <pybind11/pybind11.h>

namespace xfer::python {

// Binds StatusCode, Access, MemoryKind, OpCode and DataMover.
void BindEnums(pybind11::module_& module);

}  // namespace xfer::python

#endif  // XFER_PYTHON_ENUMS_H_
