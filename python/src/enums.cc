#include "enums.h"

#include "xfer/data_mover.h"
#include "xfer/memory.h"
#include "xfer/status.h"
#include "xfer/transfer.h"

namespace py = pybind11;

namespace xfer::python {

void BindEnums(py::module_& module) {
  py::enum_<StatusCode>(module, "StatusCode",
                        "What an xfer.Error (or Request.status) reports; mirrors xfer::StatusCode.")
      .value("OK", StatusCode::kOk)
      .value("IN_PROGRESS", StatusCode::kInProgress, "a request is still in flight")
      .value("INVALID_ARGUMENT", StatusCode::kInvalidArgument,
             "the caller passed something malformed")
      .value("NOT_FOUND", StatusCode::kNotFound, "no such peer, region or transport")
      .value("PERMISSION_DENIED", StatusCode::kPermissionDenied,
             "the region does not grant the requested access")
      .value("OUT_OF_RANGE", StatusCode::kOutOfRange,
             "an address range falls outside registered memory")
      .value("TIMEOUT", StatusCode::kTimeout, "a wait ran past its deadline")
      .value("CONNECTION_LOST", StatusCode::kConnectionLost,
             "the peer closed, died or reset the connection")
      .value("PROTOCOL_ERROR", StatusCode::kProtocolError, "the peer sent bytes that do not parse")
      .value("NOT_SUPPORTED", StatusCode::kNotSupported,
             "the transport or build lacks the capability")
      .value("RESOURCE_EXHAUSTED", StatusCode::kResourceExhausted,
             "out of memory, hugepages, descriptors, ...")
      .value("FAILED_PRECONDITION", StatusCode::kFailedPrecondition,
             "the system is not in a state to do it")
      .value("IO_ERROR", StatusCode::kIoError, "a system call failed")
      .value("INTERNAL", StatusCode::kInternal, "a bug in libxfer")
      .value("CANCELLED", StatusCode::kCancelled, "the caller cancelled the request");

  py::enum_<Access>(module, "Access",
                    "Which remote operations a registered region admits. Local use (the source of "
                    "a WRITE, the destination of a READ) needs no flag.")
      .value("NONE", Access::kNone)
      .value("REMOTE_READ", Access::kRemoteRead, "the peer may READ from the region")
      .value("REMOTE_WRITE", Access::kRemoteWrite, "the peer may WRITE into the region")
      .value("REMOTE_READ_WRITE", Access::kRemoteReadWrite, "both")
      // Combined as flags are: REMOTE_READ | REMOTE_WRITE is REMOTE_READ_WRITE
      // (an Access, not an int), `wanted in granted` asks whether a region
      // admits an operation.
      .def("__or__", [](Access a, Access b) { return a | b; }, py::is_operator())
      .def("__ror__", [](Access a, Access b) { return a | b; }, py::is_operator())
      .def("__and__",
           [](Access a, Access b) {
             return static_cast<Access>(static_cast<unsigned>(a) & static_cast<unsigned>(b));
           },
           py::is_operator())
      .def("__contains__", [](Access granted, Access wanted) { return HasAccess(granted, wanted); });

  py::enum_<MemoryKind>(module, "MemoryKind", "What backs a region.")
      .value("HOST", MemoryKind::kHost, "ordinary pages")
      .value("HUGEPAGE", MemoryKind::kHugepage,
             "2 MiB hugepages (needs free pages in /proc/sys/vm/nr_hugepages)")
      .value("CUDA", MemoryKind::kCuda, "CUDA device memory on one GPU");

  py::enum_<OpCode>(module, "OpCode", "The direction of a one-sided batch.")
      .value("READ", OpCode::kRead, "copy remote -> local")
      .value("WRITE", OpCode::kWrite, "copy local -> remote");

  py::enum_<DataMover>(module, "DataMover",
                       "What moves a connection's bytes, and so what bounds its bandwidth.")
      .value("CPU_COPY", DataMover::kCpuCopy, "a CPU core of the initiator copies (shm)")
      .value("KERNEL", DataMover::kKernel, "the kernel's socket stack (tcp)")
      .value("NIC", DataMover::kNic, "an RDMA NIC (verbs)");
}

}  // namespace xfer::python
