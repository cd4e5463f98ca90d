#include "conversions.h"

#include <fmt/format.h>

#include <cmath>
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

const char* TypeName(py::handle value) { return Py_TYPE(value.ptr())->tp_name; }

// One field of entry `index` as an unsigned 64-bit integer.
uint64_t FieldFromPython(py::handle value, size_t index, size_t field) {
  const std::string where = fmt::format("entries[{}][{}] ({})", index, field, kFieldNames[field]);
  py::object integer = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
  if (!integer) {
    PyErr_Clear();
    throw py::type_error(fmt::format("{} must be an int, not {}", where, TypeName(value)));
  }
  const unsigned long long converted = PyLong_AsUnsignedLongLong(integer.ptr());
  if (converted == static_cast<unsigned long long>(-1) && PyErr_Occurred() != nullptr) {
    PyErr_Clear();  // OverflowError: negative, or 2**64 or more
    throw py::value_error(fmt::format("{} must be in [0, 2**64), got {}", where,
                                      py::repr(integer).cast<std::string>()));
  }
  return static_cast<uint64_t>(converted);
}

}  // namespace

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
        TypeName(entries)));
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
