#include "region.h"

#include <fmt/format.h>

#include <exception>
#include <string>

#include "conversions.h"
#include "errors.h"

namespace py = pybind11;

namespace xfer::python {
namespace {

// What one exported view holds, in Py_buffer::internal: the engine's state
// (so the memory outlives the view even if the Engine object goes away)
// and the region to count the view against.
struct ExportHold {
  std::shared_ptr<EngineCore> core;
  uint64_t region_id;
};

// bf_getbuffer: a flat, writable, unsigned-byte view of the region's
// memory. On failure: view->obj is NULL, an exception is set, -1.
extern "C" int RegionGetBuffer(PyObject* self, Py_buffer* view, int flags) {
  view->obj = nullptr;
  try {
    const Region& region = py::handle(self).cast<const Region&>();
    const uint64_t id = region.region().id;
    std::shared_ptr<EngineCore> core = region.core();
    if (!core) {
      SetPythonError(FailedPrecondition(fmt::format("region {}: its engine is closed", id)));
      return -1;
    }
    auto exported = core->BeginExport(id);
    if (!exported.ok()) {
      SetPythonError(exported.status());
      return -1;
    }
    if (PyBuffer_FillInfo(view, self, exported->data, static_cast<Py_ssize_t>(exported->length),
                          /*readonly=*/0, flags) != 0) {
      core->EndExport(id);
      return -1;
    }
    view->internal = new ExportHold{std::move(core), id};
    return 0;
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return -1;
}

// bf_releasebuffer. Dropping the hold may destroy the engine's state, when
// this was the last view of an Engine already gone: the GIL is held here,
// as ~EngineCore requires.
extern "C" void RegionReleaseBuffer(PyObject* /*self*/, Py_buffer* view) {
  auto* hold = static_cast<ExportHold*>(view->internal);
  hold->core->EndExport(hold->region_id);
  delete hold;
}

std::string Describe(const Region& handle) {
  const MemoryRegion& r = handle.region();
  std::string text = fmt::format("xfer.Region(id={}, address={:#x}, length={}, kind={}", r.id,
                                 AsAddress(r.address), r.length, MemoryKindName(r.kind));
  if (r.kind == MemoryKind::kCuda) text += fmt::format(", device={}", r.device);
  return text + ")";
}

}  // namespace

void BindRegion(py::module_& module) {
  py::class_<Region>(
      module, "Region", py::is_final(),
      // pybind11's own buffer support cannot count releases; these slots do.
      py::custom_type_setup([](PyHeapTypeObject* heap_type) {
        heap_type->ht_type.tp_as_buffer = &heap_type->as_buffer;
        heap_type->as_buffer.bf_getbuffer = RegionGetBuffer;
        heap_type->as_buffer.bf_releasebuffer = RegionReleaseBuffer;
      }),
      "Memory registered with an Engine (Engine.register, Engine.register_device,\n"
      "Engine.allocate). Valid until Engine.deregister(region) or Engine.close().\n\n"
      "Host and hugepage regions export their bytes through the buffer protocol:\n"
      "memoryview(region) and numpy.frombuffer(region, dtype=...) are zero-copy,\n"
      "writable views. While any view lives, Engine.deregister(region) and\n"
      "Engine.close() raise xfer.Error(FAILED_PRECONDITION). CUDA regions have\n"
      "no host buffer: hand region.address to the GPU library.\n\n"
      "A Region object is only a handle: dropping it deregisters nothing.")
      .def_property_readonly(
          "id", [](const Region& r) { return r.region().id; }, "Engine-unique id (int, never 0).")
      .def_property_readonly(
          "address", [](const Region& r) { return AsAddress(r.region().address); },
          "Address of the first byte in this process (int); use address + offset as the local "
          "address of a transfer entry.")
      .def_property_readonly(
          "length", [](const Region& r) { return r.region().length; }, "Length in bytes (int).")
      .def_property_readonly(
          "access", [](const Region& r) { return r.region().access; },
          "What the peer may do (Access).")
      .def_property_readonly(
          "kind", [](const Region& r) { return r.region().kind; }, "What backs it (MemoryKind).")
      .def_property_readonly(
          "device", [](const Region& r) { return r.region().device; },
          "CUDA device ordinal of CUDA memory; -1 otherwise.")
      .def("__repr__", &Describe);
}

}  // namespace xfer::python
