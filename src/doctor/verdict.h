// The line no other tool prints: "expected X, measured Y (Z %), bound by W".
#ifndef XFER_DOCTOR_VERDICT_H_
#define XFER_DOCTOR_VERDICT_H_

#include <optional>
#include <string>

#include "doctor/ceiling.h"
#include "doctor/run_file.h"

namespace xfer::doctor {

// Below this fraction of the lowest ceiling a run is not link-bound (§3c,
// §5.2): something else (CPU, per-QP engine, emulation) limits it.
inline constexpr double kLinkBoundFraction = 0.5;

struct Verdict {
  std::string line;
  std::optional<double> fraction;  // measured / ceiling
  bool link_bound = false;
};

// For a verbs measurement against its path's ceiling.
Verdict JudgeRun(const RunMeasurement& run, const Ceiling& ceiling);

// For a measurement on a transport with no RDMA link (shm, tcp).
Verdict NoRdmaLinkVerdict(const RunMeasurement& run);

}  // namespace xfer::doctor

#endif  // XFER_DOCTOR_VERDICT_H_
