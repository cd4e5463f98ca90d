// The state behind one xfer.Engine: the C++ engine, the Python buffers its
// registrations hold, and the operations still in flight. Shared, so that
// what must outlive Engine.close() (an exported memoryview of engine
// memory, a call running on another thread with the GIL released) keeps it.
//
// Thread-safety: the bookkeeping is guarded by the GIL; every method but
// engine() REQUIRES the GIL. The xfer::Engine is thread-safe and is called
// with the GIL released.
#ifndef XFER_PYTHON_ENGINE_CORE_H_
#define XFER_PYTHON_ENGINE_CORE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "held_buffer.h"
#include "operation.h"
#include "xfer/engine.h"

namespace xfer::python {

class EngineCore {
 public:
  explicit EngineCore(std::unique_ptr<Engine> engine);

  // Destroys the engine first (with the GIL released), which disconnects
  // every peer and so finishes every in-flight request with
  // CONNECTION_LOST and frees the memory the engine allocated; only then
  // releases the operations and the held Python buffers. REQUIRES: the GIL
  // is held; no buffer views are exported (each holds a reference).
  ~EngineCore();
  EngineCore(const EngineCore&) = delete;
  EngineCore& operator=(const EngineCore&) = delete;

  Engine& engine() const { return *engine_; }

  // Set by Engine.close(): no new buffer views; the core itself lives until
  // the calls still running on other threads return.
  void MarkClosed() { closed_ = true; }
  bool closed() const { return closed_; }

  // ---- registrations ----

  // Records a region the engine registered; `held` is the Python buffer
  // behind it (nothing for engine memory and device memory), released when
  // the region is deregistered or the core destroyed.
  void Track(const MemoryRegion& region, HeldBuffer held);

  // Checks that region `id` may be deregistered now and marks it under way.
  // Throws StatusError: NOT_FOUND (not registered here), FAILED_PRECONDITION
  // (buffer views export it, an operation in flight uses it, or it is
  // already being deregistered). Returns the region to pass the engine.
  MemoryRegion BeginDeregister(uint64_t id);

  // Forgets region `id` after Engine::DeregisterMemory returned `outcome`.
  // On OK its Python buffer is released. On an error the engine may still
  // let a stalled peer's copy land in caller memory (see
  // DeregisterMemory), so the buffer is kept until the core is destroyed.
  void FinishDeregister(uint64_t id, const Status& outcome);

  // ---- buffer views of region memory ----

  // The memory to export for region `id`, counting one more view. Errors:
  // FAILED_PRECONDITION (engine closed, deregistration under way),
  // NOT_FOUND (not registered), NOT_SUPPORTED (CUDA device memory, which
  // the CPU cannot address).
  struct Exported {
    void* data = nullptr;
    size_t length = 0;
  };
  Result<Exported> BeginExport(uint64_t id);
  // One view of region `id` was released.
  void EndExport(uint64_t id) noexcept;
  // Throws StatusError FAILED_PRECONDITION naming a region that views
  // still export, if any does. `what` names the refused call.
  void CheckNoExports(const char* what) const;

  // ---- operations ----

  // Starts an operation on the given local addresses (in_call set): the
  // registrations holding them cannot be deregistered until it is no longer
  // active. An address in no registration is left for the engine to refuse
  // (OUT_OF_RANGE). Throws StatusError FAILED_PRECONDITION when one lies
  // in a region being deregistered.
  std::shared_ptr<Operation> BeginOperation(std::span<const TransferEntry> entries);
  std::shared_ptr<Operation> BeginOperation(const void* local);

 private:
  struct Registration {
    MemoryRegion region;
    HeldBuffer held;
    size_t exports = 0;          // live buffer views of the memory
    bool deregistering = false;  // Engine::DeregisterMemory under way
  };

  Registration* Find(uint64_t id);
  // The id of the registration holding `address`, if any. Throws as
  // BeginOperation does.
  std::optional<uint64_t> RegionHolding(const void* address) const;
  std::shared_ptr<Operation> Keep(std::vector<uint64_t> local_regions);
  // Drops the operations the engine is done with.
  void Prune();

  std::unique_ptr<Engine> engine_;
  bool closed_ = false;
  std::map<uint64_t, Registration> registrations_;  // by region id
  std::map<uint64_t, uint64_t> region_at_;          // first byte's address -> region id
  std::vector<std::shared_ptr<Operation>> operations_;
  size_t prune_at_ = kMinPruneAt;  // prune when operations_ grows past this
  static constexpr size_t kMinPruneAt = 64;
  // Buffers of regions whose deregistration failed (see FinishDeregister).
  std::vector<HeldBuffer> retired_;
};

}  // namespace xfer::python

#endif  // XFER_PYTHON_ENGINE_CORE_H_
