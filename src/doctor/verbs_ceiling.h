// The verbs ceiling for one (device, port), for the benchmark to record next
// to its results (issue 11 §3).
//
// Contract:
//  * Reads sysfs under `sysfs_root` ("/" on a live host) on every call; no
//    cache, no global state; thread-safe.
//  * bytes_per_s: the doctor's ceiling in bytes/s (10^0 B/s) for RC traffic
//    at `mtu_bytes` (0 = the active MTU the doctor derives from the netdev;
//    an IB port, whose active MTU sysfs lacks, then assumes 4096 and says
//    so in `source`). It is the minimum of the port's goodput and every PCIe
//    link to the root port at MPS 256 (assumed: MPS is not read).
//  * source: one line naming every factor, e.g. "port 25 Gb/s × RoCEv2/IPv4
//    eff at MTU 4096; PCIe 5 GT/s x4"; when a factor is unknown the value is
//    an upper bound and `source` says which factor and why.
//  * bytes_per_s is unknown (with the reason) when the device or port does
//    not exist under the root, or no factor could be read.
#ifndef XFER_DOCTOR_VERBS_CEILING_H_
#define XFER_DOCTOR_VERBS_CEILING_H_

#include <string>

#include "topology/reading.h"

namespace xfer::doctor {

struct VerbsCeiling {
  topology::Reading<double> bytes_per_s;
  std::string source;
};

VerbsCeiling VerbsCeilingFor(const std::string& device, int port, int mtu_bytes = 0,
                             const std::string& sysfs_root = "/");

}  // namespace xfer::doctor

#endif  // XFER_DOCTOR_VERBS_CEILING_H_
