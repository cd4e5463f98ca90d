#include "doctor/verdict.h"

#include <fmt/format.h>

namespace xfer::doctor {
namespace {

// "45.7 % of port rate 100 Gb/s (...), 40.1 % of PCIe 4.0 x8 ..."
std::string FractionsOfEachFactor(double measured, const Ceiling& ceiling) {
  std::string text;
  for (const CeilingFactor& factor : ceiling.factors) {
    if (!factor.bytes_per_s.known()) continue;
    if (!text.empty()) text += ", ";
    text += fmt::format("{:.1f} % of the {}{} ceiling", measured / *factor.bytes_per_s.value * 100.0, factor.name,
                        factor.is_virtual ? " (virtual)" : "");
  }
  return text;
}

}  // namespace

Verdict JudgeRun(const RunMeasurement& run, const Ceiling& ceiling) {
  Verdict verdict;
  const std::string measured = FormatRateWithGbps(run.bytes_per_s, run.unit);
  if (!ceiling.bytes_per_s.known()) {
    verdict.line = fmt::format("{}: expected unknown ({}), measured {}", run.label,
                               ceiling.bytes_per_s.unknown_reason, measured);
    return verdict;
  }
  const double expected = *ceiling.bytes_per_s.value;
  const double fraction = run.bytes_per_s / expected;
  verdict.fraction = fraction;
  const std::string head = fmt::format("{}: expected {}, measured {} ({:.1f} %)", run.label,
                                       FormatRateWithGbps(expected, run.unit), measured, fraction * 100.0);
  const CeilingFactor& binding = *ceiling.binding_factor();
  const std::string upper_bound =
      ceiling.incomplete.empty() ? "" : fmt::format(" (an upper bound: {})", ceiling.incomplete);
  if (fraction < kLinkBoundFraction) {
    verdict.line = fmt::format("{}: not link-bound: CPU, per-QP engine or emulation ({}){}{}", head,
                               FractionsOfEachFactor(run.bytes_per_s, ceiling),
                               run.qps == 1 ? "; 1 QP: rerun with more QPs (-q 4) to tell a per-QP limit" : "",
                               upper_bound);
    return verdict;
  }
  verdict.link_bound = true;
  verdict.line = fmt::format("{}, bound by {}{}{}", head, binding.name, binding.is_virtual ? " (virtual)" : "",
                             upper_bound);
  if (fraction > 1.02) {
    verdict.line += "; measured is above the model: an assumption (MPS, MTU, GID type) or the run's units are wrong";
  }
  return verdict;
}

Verdict NoRdmaLinkVerdict(const RunMeasurement& run) {
  Verdict verdict;
  verdict.line = fmt::format("{}: measured {}; transport {} has no RDMA link on that path, so no link ceiling applies",
                             run.label, FormatRateWithGbps(run.bytes_per_s, run.unit),
                             run.transport.empty() ? "(unnamed)" : run.transport);
  return verdict;
}

}  // namespace xfer::doctor
