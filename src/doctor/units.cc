#include "doctor/units.h"

#include <fmt/format.h>

namespace xfer::doctor {

std::string_view RateUnitName(RateUnit unit) {
  switch (unit) {
    case RateUnit::kGbps: return "Gb/s";
    case RateUnit::kGBps: return "GB/s";
    case RateUnit::kMiBps: return "MiB/s";
  }
  return "?";
}

double ToUnit(double bytes_per_s, RateUnit unit) {
  switch (unit) {
    case RateUnit::kGbps: return bytes_per_s * 8.0 / 1e9;
    case RateUnit::kGBps: return bytes_per_s / 1e9;
    case RateUnit::kMiBps: return bytes_per_s / 1048576.0;
  }
  return bytes_per_s;
}

std::string FormatNumber(double value) { return fmt::format("{:.4g}", value); }

std::string FormatFixed(double value, int decimals) { return fmt::format("{:.{}f}", value, decimals); }

std::string FormatRate(double bytes_per_s, RateUnit unit) {
  const double value = ToUnit(bytes_per_s, unit);
  switch (unit) {
    case RateUnit::kGbps: return fmt::format("{} Gb/s", FormatNumber(value));
    case RateUnit::kGBps: return fmt::format("{} GB/s", FormatFixed(value, 3));
    case RateUnit::kMiBps: return fmt::format("{} MiB/s", FormatFixed(value, 2));
  }
  return "?";
}

std::string FormatRateWithGbps(double bytes_per_s, RateUnit unit) {
  const RateUnit other = unit == RateUnit::kGbps ? RateUnit::kGBps : RateUnit::kGbps;
  return fmt::format("{} ({})", FormatRate(bytes_per_s, unit), FormatRate(bytes_per_s, other));
}

}  // namespace xfer::doctor
