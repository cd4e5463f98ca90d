// The goodput model (doctor.md §2.5): the ceiling of a path is the minimum
// over its factors (the port's data rate × packet efficiency at the active
// MTU, and every PCIe link from the NIC to the root port at its TLP
// efficiency); the binding factor is the lowest one. Assumptions the model
// must make (MPS, an IB MTU sysfs does not show, a GID type it cannot read)
// are named in the factor's text, never hidden.
#ifndef XFER_DOCTOR_CEILING_H_
#define XFER_DOCTOR_CEILING_H_

#include <optional>
#include <string>
#include <vector>

#include "doctor/path_reading.h"
#include "topology/reading.h"

namespace xfer::doctor {

// The MPS the model assumes when it cannot read DevCtl (config space past
// 64 bytes is root-only, and the doctor does not parse it).
inline constexpr int kAssumedMaxPayload = 256;

struct CeilingOptions {
  // The MTU the run used (perftest's "Mtu"); it replaces the active MTU the
  // model derives, since the peer or -m can lower it.
  std::optional<int> run_mtu_bytes;
  // UD (34 B per IB packet) instead of RC/UC (26 B).
  bool unreliable_datagram = false;
};

struct ActiveMtu {
  topology::Reading<int> bytes;
  std::string how;  // "derived: netdev MTU 9000 − 96 (iboe_get_mtu)", "the run's Mtu", ...
};

struct CeilingFactor {
  std::string name;             // "port rate 10 Gb/s (netdev eth0 speed 10000 Mb/s)"
  std::string short_source;     // "port 10 Gb/s × RoCEv2/IPv4 eff at MTU 4096"
  topology::Reading<double> bytes_per_s;  // 10^0 B/s
  std::string detail;           // efficiency and assumptions, e.g. "MPS 256 assumed; at MPS 128 1.641 GB/s"
  bool is_virtual = false;      // emulated hardware: no physical limit
};

struct Ceiling {
  ActiveMtu active_mtu;
  std::vector<CeilingFactor> factors;
  // The minimum over the known factors; unknown when none is known. When
  // some factor is unknown it is an upper bound, and `incomplete` says which.
  topology::Reading<double> bytes_per_s;
  std::optional<size_t> binding;  // index into factors
  std::string incomplete;         // "" or "PCIe link unknown: ..."
  std::string source;             // one line: the factors' short sources joined by "; "
  std::vector<std::string> warnings;

  const CeilingFactor* binding_factor() const { return binding ? &factors[*binding] : nullptr; }
};

Ceiling ComputeCeiling(const PathReading& path, const CeilingOptions& options = {});

// "PCIe 2.0" for 5 GT/s; "PCIe ? GT/s" for a speed no generation has.
std::string PcieGenerationName(double gigatransfers_per_s);

}  // namespace xfer::doctor

#endif  // XFER_DOCTOR_CEILING_H_
