// The ceiling of each matrix cell: the physical limit of the same work on
// the path that carries it, by the connection's DataMover (xfer/data_mover.h).
#ifndef XFER_BENCH_MATRIX_CELL_CEILINGS_H_
#define XFER_BENCH_MATRIX_CELL_CEILINGS_H_

#include <cstdint>
#include <map>
#include <string>

#include "bench/ceiling.h"
#include "xfer/engine.h"

namespace xfer::matrix {

// Not thread-safe. Measures on the calling thread, once per block size,
// so that every cell of that block shares one figure.
class CellCeilings {
 public:
  // `transfer_size`: the bytes one sample moves (the span copied).
  explicit CellCeilings(uint64_t transfer_size) : transfer_size_(transfer_size) {}

  // The ceiling of a cell of `block`-byte entries on `path`:
  // * kCpuCopy between host memories: single-core memcpy of `block`-byte
  //   blocks across the sample's span (capped at kMaxCopySpan: beyond the
  //   caches more span changes nothing), as a sample copies them;
  // * device memory: unknown (the local copy anchors are its reference);
  // * kKernel: unknown (a socket stack has no hardware limit to derive);
  // * kNic: unknown here ('xfer doctor' derives the port and PCIe ceiling).
  // Never fails: a measurement that cannot run is an unknown ceiling
  // saying why.
  bench::Ceiling For(const PeerInfo& path, bool device_memory, uint64_t block);

  static constexpr uint64_t kMaxCopySpan = uint64_t{256} << 20;

 private:
  bench::Ceiling MeasuredCopy(uint64_t block);

  const uint64_t transfer_size_;
  std::map<uint64_t, bench::Ceiling> copies_;  // by block size
};

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_CELL_CEILINGS_H_
