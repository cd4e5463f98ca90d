// xfer.Region: a region registered with (or allocated by) an Engine, and
// the exporter of its memory through the buffer protocol.
#ifndef XFER_PYTHON_REGION_H_
#define XFER_PYTHON_REGION_H_

#include <pybind11/pybind11.h>

#include <memory>
#include <utility>

#include "engine_core.h"
#include "xfer/memory.h"

namespace xfer::python {

// A description plus a weak link to the engine's state: a Region neither
// keeps the engine alive nor owns its registration (the engine does, until
// Engine.deregister or Engine.close), so garbage-collecting it changes
// nothing. A buffer view exported from it (memoryview(region),
// numpy.frombuffer(region)) does hold the engine's state, and is counted:
// while views live, the region cannot be deregistered nor the engine
// closed, so a view never outlives the memory it shows.
class Region {
 public:
  Region(std::weak_ptr<EngineCore> core, const MemoryRegion& region)
      : core_(std::move(core)), region_(region) {}

  const MemoryRegion& region() const { return region_; }
  // The engine's state, or null once it is destroyed.
  std::shared_ptr<EngineCore> core() const { return core_.lock(); }

 private:
  std::weak_ptr<EngineCore> core_;
  MemoryRegion region_;
};

void BindRegion(pybind11::module_& module);

}  // namespace xfer::python

#endif  // XFER_PYTHON_REGION_H_
