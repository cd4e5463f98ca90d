#include "cli/flag_table.h"

#include <string>

#include "cli/value_parse.h"

namespace xfer::cli {
namespace {

bool HasLongName(const FlagSpec& spec, std::string_view name) {
  std::string_view names = spec.long_names;
  while (!names.empty()) {
    const size_t comma = names.find(',');
    if (names.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    names.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

std::vector<const FlagSpec*> AllFlags() {
  std::vector<const FlagSpec*> flags;
  for (const FlagSpec& spec : CoreFlags()) flags.push_back(&spec);
  for (const FlagSpec& spec : CompatFlags()) flags.push_back(&spec);
  return flags;
}

const FlagSpec* FindFlag(char short_name, std::string_view long_name) {
  for (const FlagSpec* spec : AllFlags()) {
    if (short_name != '\0' && spec->short_name == short_name) return spec;
    if (!long_name.empty() && HasLongName(*spec, long_name)) return spec;
  }
  return nullptr;
}

Result<int64_t> ParseFlagInteger(const FlagSpec& spec, std::string_view value,
                                 int64_t min, int64_t max) {
  Result<int64_t> parsed = ParseIntegerInRange(value, min, max);
  if (!parsed.ok()) return parsed.status().WithContext(DisplayName(spec));
  return parsed;
}

std::string TypedFlag(const FlagSpec& spec, std::string_view value) {
  std::string typed;
  if (spec.short_name != '\0') {
    typed = std::string{'-', spec.short_name};
  } else {
    typed = "--";
    typed += LongName(spec);
  }
  if (!value.empty()) {
    typed += ' ';
    typed += value;
  }
  return typed;
}

}  // namespace xfer::cli
