// The extension module xfer._xfer; the package xfer re-exports it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "engine.h"
#include "enums.h"
#include "errors.h"
#include "peer_info.h"
#include "region.h"
#include "request.h"
#include "xfer/device.h"
#include "xfer/engine.h"

namespace py = pybind11;

PYBIND11_MODULE(_xfer, module) {
  using namespace xfer::python;
  module.doc() = "Python bindings of libxfer, a one-sided RDMA/TCP/shm transfer engine.";
  module.attr("__version__") = XFER_PYTHON_VERSION;
  module.attr("MAX_NOTIFICATION_BYTES") = xfer::kMaxNotificationBytes;

  // Order matters: each binds what the next ones refer to.
  BindEnums(module);
  BindErrors(module);
  BindPeerInfo(module);
  BindRegion(module);
  BindRequest(module);
  BindEngine(module);

  module.def("builtin_transports", &xfer::BuiltinTransports,
             "The names of the transports this build contains (list[str]), e.g.\n"
             "['shm', 'tcp', 'verbs']; any may be named in Engine(transports=...) and\n"
             "Engine.connect(transport=...).");
  module.def(
      "transport_options",
      [] {
        py::list options;
        for (const xfer::TransportOptionInfo& option : xfer::BuiltinTransportOptions()) {
          py::dict row;
          row["keyword"] = option.transport + "_" + option.key;
          row["transport"] = option.transport;
          row["key"] = option.key;
          row["type"] = option.integer ? "int" : "str";
          row["min"] = option.integer ? py::object(py::int_(option.min)) : py::none();
          row["max"] = option.integer ? py::object(py::int_(option.max)) : py::none();
          row["choices"] = option.choices;
          row["default"] = option.default_text;
          row["doc"] = option.doc;
          options.append(std::move(row));
        }
        return options;
      },
      "The options of the built-in transports (list[dict]), from each transport's own\n"
      "table: keyword (what Engine() takes, '<transport>_<key>', e.g. 'verbs_device'),\n"
      "transport, key, type ('int' or 'str'), min, max and choices (ints), default\n"
      "and doc (str).");
  module.def("cuda_support", &xfer::CudaSupport,
             "What this build does with CUDA, in one line (str); says nothing about this\n"
             "host (see list_cuda_devices()).");
  module.def(
      "list_cuda_devices",
      [] {
        auto devices = xfer::ListCudaDevices();
        // No driver, no device, no CUDA in this build: none to list.
        if (!devices.ok() && (devices.status().code() == xfer::StatusCode::kFailedPrecondition ||
                              devices.status().code() == xfer::StatusCode::kNotSupported)) {
          return std::vector<xfer::CudaDevice>();
        }
        return ValueOrThrow(std::move(devices));
      },
      "The CUDA devices this process can use (list[CudaDevice]); [] on a host or\n"
      "build that cannot use CUDA (cuda_support() says why).");
}
