// What connecting cost one side in registering its memory with the
// transport's device (PeerInfo::registration): over verbs, ibv_reg_mr of
// every region the engine held, which pins the pages and writes the NIC's
// translation tables. It is what "registering 50 GB takes a minute" is
// about, and it is paid per connection, inside Connect and Accept.
#ifndef XFER_DEVICE_REGISTRATION_H_
#define XFER_DEVICE_REGISTRATION_H_

#include <chrono>
#include <cstdint>

namespace xfer {

// All zero on transports that register nothing with a device (shm, tcp).
struct DeviceRegistration {
  uint64_t bytes = 0;               // registered
  uint32_t memory_registrations = 0;  // MRs made: a large region makes one per piece
  std::chrono::nanoseconds duration{0};  // wall time, all of them
};

}  // namespace xfer

#endif  // XFER_DEVICE_REGISTRATION_H_
