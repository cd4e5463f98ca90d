// The expected ceiling of a measured figure: the physical limit of the same
// work on the path that carried it, and where that figure comes from.
#ifndef XFER_BENCH_MODEL_CEILING_H_
#define XFER_BENCH_MODEL_CEILING_H_

#include <optional>
#include <string>

namespace xfer::bench {

struct Ceiling {
  // The limit in bytes/s; empty when none is known.
  std::optional<double> bytes_per_s;
  // How the limit was obtained ("single-core memcpy of 65536 B on this
  // host, ..."), or why none is known. Never empty.
  std::string source;

  // measured / limit, or empty without a limit.
  std::optional<double> Efficiency(double measured_bytes_per_s) const {
    if (!bytes_per_s || *bytes_per_s <= 0) return std::nullopt;
    return measured_bytes_per_s / *bytes_per_s;
  }

  static Ceiling Unknown(std::string why) { return Ceiling{std::nullopt, std::move(why)}; }
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_MODEL_CEILING_H_
