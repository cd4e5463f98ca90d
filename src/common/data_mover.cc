#include "xfer/data_mover.h"

namespace xfer {

const char* DataMoverName(DataMover mover) {
  switch (mover) {
    case DataMover::kCpuCopy:
      return "cpu copy";
    case DataMover::kKernel:
      return "kernel";
    case DataMover::kNic:
      return "nic";
  }
  return "unknown";
}

}  // namespace xfer
