// What moves a connection's bytes, and so what limits its bandwidth.
#ifndef XFER_DATA_MOVER_H_
#define XFER_DATA_MOVER_H_

#include <cstdint>

#include "xfer/export.h"

namespace xfer {

// What moves the bytes of a READ or WRITE on a connection. It names the
// physical limit the connection's bandwidth is judged against.
enum class DataMover : uint8_t {
  // A CPU core of the initiator copies between the two processes' memory
  // (shm): bounded by one core's memcpy of the same size on this host.
  kCpuCopy,
  // The kernel's socket stack on both hosts (tcp): no ceiling can be
  // derived from the hardware; only a measurement of the stack gives one.
  kKernel,
  // An RDMA NIC (verbs): bounded by its port's data rate at the active MTU
  // and by the PCIe links between the NIC and the root port.
  kNic,
};

// "cpu copy", "kernel", "nic". Never null.
XFER_API const char* DataMoverName(DataMover mover);

}  // namespace xfer

#endif  // XFER_DATA_MOVER_H_
