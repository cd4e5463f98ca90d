// The memory one side of a matrix moves data from or into: one buffer of
// transfer_size bytes per placement its directions use, allocated through
// the engine before any peer connects (a peer learns only the regions
// registered before it connected).
#ifndef XFER_BENCH_MATRIX_SIDE_BUFFERS_H_
#define XFER_BENCH_MATRIX_SIDE_BUFFERS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/matrix/direction.h"
#include "bench/matrix/memory_placement.h"
#include "bench/model/registration_timing.h"
#include "xfer/engine.h"

namespace xfer::matrix {

// The placement a side uses for memory class `letter`: `chosen` (the side's
// --memory / --remote_memory) when it is of that class, else the class's
// default. Never null for a letter of AllDirections().
const MemoryPlacement* PlacementFor(char letter, std::string_view chosen);

// The distinct placements one side needs: the initiator's (initiator=true)
// or the target's letters of `directions`, in first-use order.
std::vector<const MemoryPlacement*> PlacementsNeeded(const std::vector<Direction>& directions,
                                                     bool initiator, std::string_view chosen);

struct PlacedBuffer {
  const MemoryPlacement* placement = nullptr;
  bool available = false;
  std::string reason;   // why not available: the engine's word, or the catalog's
  MemoryRegion region;  // when available
  // What allocating (registering) it cost; deregister_s < 0 until freed.
  bench::RegistrationTiming registration;
};

// Allocates `length` bytes of each placement, readable and writable by the
// peer; device memory on CUDA device `cuda_device`. A placement this build or host cannot provide (no engine kind, or
// AllocateMemory says kNotSupported / kFailedPrecondition) comes back
// unavailable with the reason; its cells will read n/a. Errors: any other
// allocation failure (e.g. kResourceExhausted for hugepages), naming the
// placement and the size.
Result<std::vector<PlacedBuffer>> AllocateSideBuffers(
    Engine& engine, const std::vector<const MemoryPlacement*>& placements, uint64_t length,
    int cuda_device);

// The buffer of `placement` in `buffers`, or nullptr.
const PlacedBuffer* FindBuffer(const std::vector<PlacedBuffer>& buffers, std::string_view placement);

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_SIDE_BUFFERS_H_
