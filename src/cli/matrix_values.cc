#include "cli/matrix_values.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "bench/matrix/block_size.h"
#include "cli/value_parse.h"

namespace xfer::cli {
namespace {

// Blocks are at most 1 GiB: a sample of one block must still fit a buffer.
constexpr int64_t kMaxBlock = int64_t{1} << 30;

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> items;
  for (;;) {
    const size_t at = text.find(separator);
    items.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return items;
    text.remove_prefix(at + 1);
  }
}

Result<uint64_t> ParseBlock(std::string_view text) {
  auto bytes = ParseBinarySize(text, 1, kMaxBlock);
  if (!bytes.ok()) return bytes.status();
  return static_cast<uint64_t>(*bytes);
}

Result<std::vector<uint64_t>> ParseRange(std::string_view spec, size_t colon) {
  auto first = ParseBlock(spec.substr(0, colon));
  if (!first.ok()) return first.status();
  auto last = ParseBlock(spec.substr(colon + 1));
  if (!last.ok()) return last.status();
  if (!std::has_single_bit(*first) || !std::has_single_bit(*last)) {
    return InvalidArgument(fmt::format(
        "'{}': both ends of a range must be powers of two (or give a list: 4K,48K,1M)", spec));
  }
  if (*first > *last) {
    return InvalidArgument(fmt::format("'{}': the range runs backwards", spec));
  }
  std::vector<uint64_t> sizes;
  for (uint64_t size = *first; size <= *last; size *= 2) sizes.push_back(size);
  return sizes;
}

}  // namespace

Result<std::vector<uint64_t>> ParseBlockSizes(std::string_view spec) {
  if (spec.empty()) return InvalidArgument("empty block size list");
  if (const size_t colon = spec.find(':'); colon != std::string_view::npos) {
    if (spec.find_first_of(":,", colon + 1) != std::string_view::npos) {
      return InvalidArgument(fmt::format("'{}': give one range or a list, not both", spec));
    }
    return ParseRange(spec, colon);
  }
  std::vector<uint64_t> sizes;
  for (std::string_view item : Split(spec, ',')) {
    if (item.empty()) return InvalidArgument(fmt::format("'{}': empty item in the list", spec));
    auto size = ParseBlock(item);
    if (!size.ok()) return size.status();
    if (std::find(sizes.begin(), sizes.end(), *size) != sizes.end()) {
      return InvalidArgument(fmt::format("'{}': {} appears twice", spec, matrix::BlockLabel(*size)));
    }
    sizes.push_back(*size);
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

Result<std::vector<std::string>> ParseNameList(std::string_view text) {
  std::vector<std::string> names;
  for (std::string_view item : Split(text, ',')) {
    if (item.empty()) return InvalidArgument(fmt::format("'{}': empty item in the list", text));
    if (std::find(names.begin(), names.end(), item) != names.end()) {
      return InvalidArgument(fmt::format("'{}': '{}' appears twice", text, item));
    }
    names.emplace_back(item);
  }
  return names;
}

Result<std::vector<matrix::Direction>> ParseDirectionList(std::string_view text) {
  auto names = ParseNameList(text);
  if (!names.ok()) return names.status();
  std::vector<matrix::Direction> directions;
  for (const std::string& name : *names) {
    auto direction = matrix::ParseDirection(name);
    if (!direction.ok()) return direction.status();
    directions.push_back(*direction);
  }
  return directions;
}

}  // namespace xfer::cli
