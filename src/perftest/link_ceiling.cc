#include "perftest/link_ceiling.h"

#include <fmt/format.h>

#include "doctor/verbs_ceiling.h"

namespace xfer::perftest {

std::map<uint64_t, bench::Ceiling> LinkCeilings(const bench::BenchParams& params,
                                                const bench::VerbsRunInfo& run,
                                                std::span<const uint64_t> sizes) {
  std::map<uint64_t, bench::Ceiling> ceilings;
  if (params.kind != bench::Kind::kBandwidth) return ceilings;
  const doctor::VerbsCeiling link =
      doctor::VerbsCeilingFor(run.device, run.ib_port, static_cast<int>(run.mtu_bytes));
  bench::Ceiling ceiling;
  if (!link.bytes_per_s.known()) {
    ceiling = bench::Ceiling::Unknown(
        fmt::format("{} port {}: {}", run.device, run.ib_port, link.bytes_per_s.unknown_reason));
  } else if (params.bidirectional) {
    ceiling = bench::Ceiling{2 * *link.bytes_per_s.value,
                             fmt::format("both directions of {} port {}: 2 x ({}), from sysfs "
                                         "as 'xfer doctor' reads it",
                                         run.device, run.ib_port, link.source)};
  } else {
    ceiling = bench::Ceiling{*link.bytes_per_s.value,
                             fmt::format("{} port {}: {}, from sysfs as 'xfer doctor' reads it",
                                         run.device, run.ib_port, link.source)};
  }
  for (uint64_t size : sizes) ceilings.emplace(size, ceiling);
  return ceilings;
}

}  // namespace xfer::perftest
