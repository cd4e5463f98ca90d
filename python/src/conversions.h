// Conversions between Python values and libxfer's argument types that
// pybind11 does not do by itself: seconds into durations, and batches of
// (local_address, remote_address, length) tuples into TransferEntry.
#ifndef XFER_PYTHON_CONVERSIONS_H_
#define XFER_PYTHON_CONVERSIONS_H_

#include <pybind11/pybind11.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "xfer/transfer.h"

namespace xfer::python {

// The Python type's name, for messages ("str", "float", "numpy.int64").
const char* PythonTypeName(pybind11::handle value);

// Checked conversions of one argument, `what` naming it in messages
// ("peer", "entries[3][2] (length)"):
// - an int (or anything with __index__, such as numpy integers; not bool)
//   in [0, max]: TypeError "<what> must be an int, not str", ValueError
//   "<what> must be in [0, 255], got -1";
// - a number, int or float (not bool): TypeError otherwise;
// - a str: TypeError otherwise;
// - bytes or bytearray, not str (the bytes must not depend on an implicit
//   encoding): TypeError otherwise.
uint64_t UnsignedFromPython(pybind11::handle value, const std::string& what, uint64_t max);
double NumberFromPython(pybind11::handle value, const std::string& what);
std::string TextFromPython(pybind11::handle value, const std::string& what);
std::string BytesFromPython(pybind11::handle value, const std::string& what);

// Raises TypeError "<function>() got an unexpected keyword argument 'x'"
// (Python's own wording) when `extra` holds any keyword.
void RefuseUnexpectedKeywords(const char* function, const pybind11::kwargs& extra);

// The longest timeout accepted, about 31 years: far below what would
// overflow a steady_clock deadline in nanoseconds.
inline constexpr double kMaxTimeoutSeconds = 1e9;

// `seconds` (a Python float) as nanoseconds / milliseconds, rounded up so
// that a positive timeout never becomes zero. Throws ValueError naming
// `what` for NaN, infinity, a negative value or one over kMaxTimeoutSeconds.
std::chrono::nanoseconds SecondsToNanoseconds(double seconds, const char* what);
std::chrono::milliseconds SecondsToMilliseconds(double seconds, const char* what);

// An address in this process as the engine takes it.
inline void* AsPointer(uint64_t address) {
  return reinterpret_cast<void*>(static_cast<uintptr_t>(address));
}
inline uint64_t AsAddress(const void* pointer) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(pointer));
}

// A batch from any iterable of (local_address, remote_address, length)
// sequences of ints (Python ints or anything with __index__, such as numpy
// integers). Throws TypeError for a wrong shape or a non-integer, and
// ValueError for a negative value or one of 2**64 or more. Only the shape
// and the integer ranges are checked here: addresses are validated by the
// engine against registered memory before any byte moves.
std::vector<TransferEntry> EntriesFromPython(pybind11::handle entries);

}  // namespace xfer::python

#endif  // XFER_PYTHON_CONVERSIONS_H_
