#include "transport/option_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <charconv>

namespace xfer::transport {
namespace {

// "[1, 255]", or "256, 512, 1024, 2048, 4096" for a key with choices.
std::string Accepted(const OptionSpec& spec) {
  if (!spec.choices.empty()) return fmt::format("one of {}", fmt::join(spec.choices, ", "));
  return fmt::format("an integer in [{}, {}]", spec.min, spec.max);
}

std::optional<uint64_t> ParseDecimal(const std::string& text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
  return value;
}

}  // namespace

const OptionSpec* OptionReader::Find(std::string_view key) const {
  const auto it = std::find_if(table_.begin(), table_.end(),
                               [key](const OptionSpec& spec) { return spec.key == key; });
  return it == table_.end() ? nullptr : &*it;
}

Status OptionReader::CheckValue(const OptionSpec& spec, const std::string& value) const {
  if (!spec.integer) return Status::Ok();
  const std::optional<uint64_t> number = ParseDecimal(value);
  const bool in_range = number && *number >= spec.min && *number <= spec.max;
  const bool chosen = spec.choices.empty() ||
                      (number && std::find(spec.choices.begin(), spec.choices.end(), *number) !=
                                     spec.choices.end());
  if (in_range && chosen) return Status::Ok();
  return InvalidArgument(fmt::format("{} transport option '{}': '{}' is not {}", transport_,
                                     spec.key, value, Accepted(spec)));
}

Status OptionReader::Check() const {
  for (const auto& [key, value] : options_) {
    const OptionSpec* spec = Find(key);
    if (spec == nullptr && table_.empty()) {
      return InvalidArgument(
          fmt::format("the {} transport takes no options (got '{}')", transport_, key));
    }
    if (spec == nullptr) {
      std::vector<std::string_view> keys;
      for (const OptionSpec& known : table_) keys.push_back(known.key);
      return InvalidArgument(fmt::format("unknown {} transport option '{}' (it takes: {})",
                                         transport_, key, fmt::join(keys, ", ")));
    }
    XFER_RETURN_IF_ERROR(CheckValue(*spec, value));
  }
  return Status::Ok();
}

std::optional<std::string> OptionReader::Text(std::string_view key) const {
  assert(Find(key) != nullptr && !Find(key)->integer);
  const auto it = options_.find(key);
  if (it == options_.end()) return std::nullopt;
  return it->second;
}

std::optional<uint64_t> OptionReader::Integer(std::string_view key) const {
  assert(Find(key) != nullptr && Find(key)->integer);
  const auto it = options_.find(key);
  if (it == options_.end()) return std::nullopt;
  return ParseDecimal(it->second);
}

}  // namespace xfer::transport
