// Number and rate formatting for the doctor's text. Units are always named:
// Gb/s = 10^9 bit/s, GB/s = 10^9 B/s, MiB/s = 2^20 B/s.
#ifndef XFER_DOCTOR_UNITS_H_
#define XFER_DOCTOR_UNITS_H_

#include <string>
#include <string_view>

namespace xfer::doctor {

enum class RateUnit { kGbps, kGBps, kMiBps };

std::string_view RateUnitName(RateUnit unit);  // "Gb/s", "GB/s", "MiB/s"
double ToUnit(double bytes_per_s, RateUnit unit);

// Up to 4 significant digits, no trailing zeros: 9.804, 98.04, 100, 2.5.
std::string FormatNumber(double value);
std::string FormatFixed(double value, int decimals);
// "1168.72 MiB/s" (2 decimals for MiB/s, 3 for GB/s, 4 significant for Gb/s).
std::string FormatRate(double bytes_per_s, RateUnit unit);
// The rate in `unit` and, in parentheses, in the other of Gb/s or GB/s
// ("1168.72 MiB/s (9.804 Gb/s)").
std::string FormatRateWithGbps(double bytes_per_s, RateUnit unit);

}  // namespace xfer::doctor

#endif  // XFER_DOCTOR_UNITS_H_
