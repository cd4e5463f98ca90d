// The ceiling of each matrix cell: the physical limit of the same work on
// the path that carries it, by the connection's DataMover (xfer/data_mover.h).
#ifndef XFER_BENCH_MATRIX_CELL_CEILINGS_H_
#define XFER_BENCH_MATRIX_CELL_CEILINGS_H_

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "bench/model/ceiling.h"
#include "xfer/engine.h"

namespace xfer::matrix {

// Not thread-safe. Measures on the calling thread, once per block size,
// so that every cell of that block shares one figure.
class CellCeilings {
 public:
  // `transfer_size`: the bytes one sample moves (the span copied).
  // `sysfs_root`: where a NIC's limits are read ("/" on a live host; a
  // recorded tree in tests).
  explicit CellCeilings(uint64_t transfer_size, std::string sysfs_root = "/")
      : transfer_size_(transfer_size), sysfs_root_(std::move(sysfs_root)) {}

  // The ceiling of a cell of `block`-byte entries on `path`:
  // * kCpuCopy between host memories: single-core memcpy of `block`-byte
  //   blocks across the sample's span (capped at kMaxCopySpan: beyond the
  //   caches more span changes nothing), as a sample copies them;
  // * device memory: unknown (the local copy anchors are its reference);
  // * kKernel: unknown (a socket stack has no hardware limit to derive);
  // * kNic: the goodput of the local port (path.nic) at the connection's
  //   MTU and of every PCIe link up to its root port, as 'xfer doctor'
  //   derives them; unknown, with the doctor's reason, where sysfs lacks
  //   them. One direction's: a matrix cell moves bytes one way.
  // Never fails: a measurement that cannot run is an unknown ceiling
  // saying why.
  bench::Ceiling For(const PeerInfo& path, bool device_memory, uint64_t block);

  static constexpr uint64_t kMaxCopySpan = uint64_t{256} << 20;

 private:
  bench::Ceiling MeasuredCopy(uint64_t block);

  bench::Ceiling LinkCeiling(const PeerInfo& path);

  const uint64_t transfer_size_;
  const std::string sysfs_root_;
  std::map<uint64_t, bench::Ceiling> copies_;  // by block size
  // By (device, port, MTU): every cell on one port shares one reading.
  std::map<std::tuple<std::string, uint32_t, uint32_t>, bench::Ceiling> links_;
};

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_CELL_CEILINGS_H_
