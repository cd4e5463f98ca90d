// A matrix direction as HIXL names it: initiator memory x target memory x
// operation. The letters read the way the data moves and 'r' marks the
// remote (target) side: H2rH is a WRITE from local host memory into remote
// host memory, rH2H a READ of remote host memory into local host memory.
#ifndef XFER_BENCH_MATRIX_DIRECTION_H_
#define XFER_BENCH_MATRIX_DIRECTION_H_

#include <string>
#include <string_view>
#include <vector>

#include "xfer/status.h"
#include "xfer/transfer.h"

namespace xfer::matrix {

struct Direction {
  OpCode op = OpCode::kWrite;
  char initiator = 'H';  // memory class letter of the initiator's buffer
  char target = 'H';     // memory class letter of the target's buffer

  // "D2rH" for a write, "rH2D" for a read.
  std::string Name() const;
  bool operator==(const Direction&) const = default;
};

// Every direction the memory classes of memory_placement.h make, in the
// seed table's order: the writes, then the reads, each as D2rD, D2rH, H2rH,
// H2rD (the target letter sweeps back and forth, so the host-to-host pair
// sits in the middle as in HIXL's tables).
std::vector<Direction> AllDirections();

// The direction called `name` (exact spelling, e.g. "rH2H"). Errors:
// kInvalidArgument naming `name` and listing the valid names.
Result<Direction> ParseDirection(std::string_view name);

// "D2rD, D2rH, ...": every name, in AllDirections() order.
std::string DirectionNameList();

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_DIRECTION_H_
