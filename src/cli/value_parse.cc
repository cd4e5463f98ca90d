#include "cli/value_parse.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace xfer::cli {
namespace {

// True when strtod() consumes all of text: used only to word the error for
// "1.5" ("not an integer") differently from "abc" ("not a number").
bool IsDecimalNumber(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) {
    return false;
  }
  char* end = nullptr;
  errno = 0;
  static_cast<void>(std::strtod(text.c_str(), &end));
  return end == text.c_str() + text.size();
}

// "08" and "-09": strtol() reads a leading 0 as octal and stops at 8 or 9.
bool IsBadOctal(std::string_view text) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    text.remove_prefix(1);
  }
  if (text.size() < 2 || text[0] != '0' || text[1] == 'x' || text[1] == 'X') {
    return false;
  }
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return text.find_first_of("89") != std::string_view::npos;
}

Status NotAnInteger(const std::string& text) {
  if (IsBadOctal(text)) {
    return InvalidArgument(fmt::format(
        "'{}' is not a number (a leading 0 means octal, digits 0-7)", text));
  }
  if (IsDecimalNumber(text)) {
    return InvalidArgument(fmt::format("'{}' is not an integer", text));
  }
  return InvalidArgument(fmt::format("'{}' is not a number", text));
}

Status OutOfRange(std::string_view text, int64_t min, int64_t max) {
  return InvalidArgument(
      fmt::format("{} is out of range {}..{}", text, min, max));
}

}  // namespace

Result<int64_t> ParseInteger(std::string_view text) {
  std::string copy(text);  // strtoll needs a terminated string
  if (copy.empty() || std::isspace(static_cast<unsigned char>(copy[0]))) {
    return NotAnInteger(copy);
  }
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(copy.c_str(), &end, 0);
  if (end != copy.c_str() + copy.size()) return NotAnInteger(copy);
  if (errno == ERANGE) {
    return InvalidArgument(fmt::format("{} is too large", copy));
  }
  return static_cast<int64_t>(value);
}

Result<int64_t> ParseIntegerInRange(std::string_view text, int64_t min,
                                    int64_t max) {
  Result<int64_t> value = ParseInteger(text);
  if (!value.ok()) return value;
  if (*value < min || *value > max) return OutOfRange(text, min, max);
  return value;
}

Result<int64_t> ParseByteCount(std::string_view text, int64_t min,
                               int64_t max) {
  std::string_view digits = text;
  int64_t factor = 1;
  if (!digits.empty()) {
    const char suffix = digits.back();
    if (suffix == 'K' || suffix == 'k') factor = int64_t{1} << 10;
    if (suffix == 'M' || suffix == 'm') factor = int64_t{1} << 20;
    if (suffix == 'G' || suffix == 'g') factor = int64_t{1} << 30;
    if (factor != 1) digits.remove_suffix(1);
  }
  // "1T": digits and a suffix that is not one, said as --transfer_size says it.
  const size_t letters = text.find_first_not_of("0123456789");
  if (factor == 1 && letters != 0 && letters != std::string_view::npos &&
      std::all_of(text.begin() + static_cast<std::ptrdiff_t>(letters), text.end(),
                  [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; })) {
    return InvalidArgument(fmt::format("'{}': unknown size suffix '{}' (use K, M or G)", text,
                                       text.substr(letters)));
  }
  Result<int64_t> value = ParseInteger(digits);
  if (!value.ok()) {
    // Quote the whole text, suffix included, not just the digits.
    return digits.size() == text.size() ? value
                                        : NotAnInteger(std::string(text));
  }
  // Compare before multiplying so that a huge value cannot overflow.
  if (*value < min / factor || *value > max / factor) {
    return OutOfRange(text, min, max);
  }
  const int64_t bytes = *value * factor;
  if (bytes < min || bytes > max) return OutOfRange(text, min, max);
  return bytes;
}

Result<int64_t> ParseBinarySize(std::string_view text, int64_t min, int64_t max) {
  size_t digits_end = text.size();
  while (digits_end > 0 && std::isalpha(static_cast<unsigned char>(text[digits_end - 1]))) {
    --digits_end;
  }
  std::string suffix(text.substr(digits_end));
  for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int shift = 0;
  if (suffix == "K" || suffix == "KB" || suffix == "KIB") shift = 10;
  if (suffix == "M" || suffix == "MB" || suffix == "MIB") shift = 20;
  if (suffix == "G" || suffix == "GB" || suffix == "GIB") shift = 30;
  if (!suffix.empty() && shift == 0) {
    return InvalidArgument(fmt::format("'{}': unknown size suffix '{}' (use K, M or G)", text,
                                       text.substr(digits_end)));
  }
  const std::string_view digits = text.substr(0, digits_end);
  Result<int64_t> value = ParseInteger(digits);
  if (!value.ok()) return suffix.empty() ? value : NotAnInteger(std::string(text));
  const int64_t factor = int64_t{1} << shift;
  if (*value < min / factor || *value > max / factor) return OutOfRange(text, min, max);
  const int64_t bytes = *value * factor;
  if (bytes < min || bytes > max) return OutOfRange(text, min, max);
  return bytes;
}

Result<double> ParsePositiveSeconds(std::string_view text, double max) {
  std::string copy(text);
  if (!IsDecimalNumber(copy)) {
    return InvalidArgument(fmt::format("'{}' is not a number", copy));
  }
  const double value = std::strtod(copy.c_str(), nullptr);
  if (!std::isfinite(value) || value <= 0 || value > max) {
    return InvalidArgument(
        fmt::format("{} is out of range: must be > 0 and <= {}", copy, max));
  }
  return value;
}

}  // namespace xfer::cli
