#include "conversions.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string>

namespace py = pybind11;

namespace xfer::python {
namespace {

template <typename Duration>
Duration SecondsTo(double seconds, const char* what) {
  if (!std::isfinite(seconds) || seconds < 0 || seconds > kMaxTimeoutSeconds) {
    throw py::value_error(fmt::format("{} must be a finite number of seconds in [0, {:g}], got {}",
                                      what, kMaxTimeoutSeconds, seconds));
  }
  return std::chrono::ceil<Duration>(std::chrono::duration<double>(seconds));
}

const char* const kFieldNames[] = {"local_address", "remote_address", "length"};

// One field of entry `index` as an unsigned 64-bit integer.
uint64_t FieldFromPython(py::handle value, size_t index, size_t field) {
  return UnsignedFromPython(
      value, fmt::format("entries[{}][{}] ({})", index, field, kFieldNames[field]),
      std::numeric_limits<uint64_t>::max());
}

}  // namespace

const char* PythonTypeName(py::handle value) { return Py_TYPE(value.ptr())->tp_name; }

uint64_t UnsignedFromPython(py::handle value, const std::string& what, uint64_t max) {
  // bool is an int subclass, but True as a length or a peer is a mistake.
  if (PyBool_Check(value.ptr()) != 0) {
    throw py::type_error(fmt::format("{} must be an int, not bool", what));
  }
  py::object integer = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
  if (!integer) {
    PyErr_Clear();
    throw py::type_error(fmt::format("{} must be an int, not {}", what, PythonTypeName(value)));
  }
  const unsigned long long converted = PyLong_AsUnsignedLongLong(integer.ptr());
  const bool overflow = converted == static_cast<unsigned long long>(-1) && PyErr_Occurred();
  if (overflow) PyErr_Clear();  // OverflowError: negative, or 2**64 or more
  if (overflow || converted > max) {
    const std::string range = max == std::numeric_limits<uint64_t>::max()
                                  ? std::string("[0, 2**64)")
                                  : fmt::format("[0, {}]", max);
    throw py::value_error(fmt::format("{} must be in {}, got {}", what, range,
                                      py::repr(integer).cast<std::string>()));
  }
  return static_cast<uint64_t>(converted);
}

double NumberFromPython(py::handle value, const std::string& what) {
  if (PyBool_Check(value.ptr()) != 0 ||
      (PyFloat_Check(value.ptr()) == 0 && PyLong_Check(value.ptr()) == 0)) {
    throw py::type_error(
        fmt::format("{} must be a number (int or float), not {}", what, PythonTypeName(value)));
  }
  return value.cast<double>();
}

std::string TextFromPython(py::handle value, const std::string& what) {
  if (!py::isinstance<py::str>(value)) {
    throw py::type_error(fmt::format("{} must be a str, not {}", what, PythonTypeName(value)));
  }
  return value.cast<std::string>();
}

std::string BytesFromPython(py::handle value, const std::string& what) {
  if (py::isinstance<py::str>(value)) {
    throw py::type_error(fmt::format(
        "{} must be bytes, not str: encode the text first (for example 'abc'.encode())", what));
  }
  if (PyByteArray_Check(value.ptr()) != 0) {
    return std::string(PyByteArray_AsString(value.ptr()),
                       static_cast<size_t>(PyByteArray_Size(value.ptr())));
  }
  if (!py::isinstance<py::bytes>(value)) {
    throw py::type_error(fmt::format("{} must be bytes, not {}", what, PythonTypeName(value)));
  }
  return std::string(py::reinterpret_borrow<py::bytes>(value));
}

void RefuseUnexpectedKeywords(const char* function, const py::kwargs& extra) {
  for (const auto& [key, value] : extra) {
    (void)value;
    throw py::type_error(fmt::format("{}() got an unexpected keyword argument {}", function,
                                     py::repr(key).cast<std::string>()));
  }
}

std::chrono::nanoseconds SecondsToNanoseconds(double seconds, const char* what) {
  return SecondsTo<std::chrono::nanoseconds>(seconds, what);
}

std::chrono::milliseconds SecondsToMilliseconds(double seconds, const char* what) {
  return SecondsTo<std::chrono::milliseconds>(seconds, what);
}

std::vector<TransferEntry> EntriesFromPython(py::handle entries) {
  if (!py::isinstance<py::iterable>(entries) || py::isinstance<py::str>(entries)) {
    throw py::type_error(fmt::format(
        "entries must be an iterable of (local_address, remote_address, length) tuples, not {}",
        PythonTypeName(entries)));
  }
  // One entry given bare, (local, remote, length), instead of a list of them.
  if (py::isinstance<py::tuple>(entries) && py::len(entries) == 3 &&
      py::isinstance<py::int_>(py::reinterpret_borrow<py::tuple>(entries)[0])) {
    throw py::type_error(
        "entries must be a list of (local_address, remote_address, length) tuples; got one bare "
        "tuple of integers: wrap it in a list, [(local_address, remote_address, length)]");
  }
  std::vector<TransferEntry> batch;
  if (PySequence_Check(entries.ptr()) != 0) batch.reserve(py::len(entries));
  for (py::handle item : entries) {
    const size_t index = batch.size();
    if (!py::isinstance<py::sequence>(item) || py::isinstance<py::str>(item) ||
        py::isinstance<py::bytes>(item) || py::len(item) != 3) {
      throw py::type_error(
          fmt::format("entries[{}] must be a (local_address, remote_address, length) tuple, not {}",
                      index, py::repr(item).cast<std::string>()));
    }
    const auto fields = py::reinterpret_borrow<py::sequence>(item);
    batch.push_back(TransferEntry{AsPointer(FieldFromPython(fields[0], index, 0)),
                                  FieldFromPython(fields[1], index, 1),
                                  static_cast<size_t>(FieldFromPython(fields[2], index, 2))});
  }
  return batch;
}

}  // namespace xfer::python
