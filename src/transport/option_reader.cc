#include "transport/option_reader.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace xfer::transport {

std::optional<std::string> OptionReader::String(std::string_view key) {
  known_.emplace_back(key);
  auto it = options_.find(key);
  if (it == options_.end()) return std::nullopt;
  return it->second;
}

Result<std::optional<uint64_t>> OptionReader::Unsigned(std::string_view key, uint64_t min,
                                                       uint64_t max) {
  auto text = String(key);
  if (!text) return std::optional<uint64_t>();
  uint64_t value = 0;
  const char* end = text->data() + text->size();
  auto [stop, error] = std::from_chars(text->data(), end, value);
  if (error != std::errc() || stop != end || text->empty() || value < min || value > max) {
    return InvalidArgument(fmt::format("{} transport option '{}': '{}' is not an integer in [{}, {}]",
                                       transport_, key, *text, min, max));
  }
  return std::optional<uint64_t>(value);
}

Status OptionReader::Finish() const {
  for (const auto& [key, value] : options_) {
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    if (known_.empty()) {
      return InvalidArgument(
          fmt::format("the {} transport takes no options (got '{}')", transport_, key));
    }
    return InvalidArgument(fmt::format("unknown {} transport option '{}' (it takes: {})",
                                       transport_, key, fmt::join(known_, ", ")));
  }
  return Status::Ok();
}

}  // namespace xfer::transport
