// What registering and deregistering one region cost an engine
// (Engine::AllocateMemory, DeregisterMemory): the pages faulted in
// (several threads for 64 MiB and more), pinned with the CUDA driver where
// device memory takes part. Over verbs the NIC's own registration is part
// of connecting, not of this: `nic` carries it, from PeerInfo::registration.
#ifndef XFER_BENCH_MODEL_REGISTRATION_TIMING_H_
#define XFER_BENCH_MODEL_REGISTRATION_TIMING_H_

#include <cstdint>

#include "xfer/device_registration.h"
#include "xfer/memory.h"

namespace xfer::bench {

struct RegistrationTiming {
  MemoryKind kind = MemoryKind::kHost;
  uint64_t bytes = 0;
  double register_s = 0;
  double deregister_s = 0;  // < 0: not deregistered (yet)
  // The connection's registration of this side's memory with the NIC
  // (bytes 0: the transport registers nothing).
  DeviceRegistration nic;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_MODEL_REGISTRATION_TIMING_H_
