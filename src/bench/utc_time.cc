#include "bench/utc_time.h"

#include <ctime>

#include <fmt/format.h>

namespace xfer::bench {

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string UtcTime(std::chrono::system_clock::time_point at, int fraction_digits) {
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(at.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(micros / 1'000'000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
  int64_t fraction = micros % 1'000'000;
  for (int digits = 6; digits > fraction_digits; --digits) fraction /= 10;
  return fmt::format("{}.{:0{}}Z", text, fraction, fraction_digits);
}

}  // namespace xfer::bench
