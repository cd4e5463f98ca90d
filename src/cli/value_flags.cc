#include "cli/value_flags.h"

#include <fmt/format.h>

namespace xfer::cli {

std::string ValueFlagName(char short_name, std::string_view long_name) {
  return short_name != '\0' ? fmt::format("-{}/--{}", short_name, long_name)
                            : fmt::format("--{}", long_name);
}

bool IsHelpFlag(std::string_view word) { return word == "-h" || word == "--help"; }

bool MatchesValueFlag(char short_name, std::string_view long_name, std::string_view word,
                      std::optional<std::string>& attached) {
  const std::string long_form = fmt::format("--{}", long_name);
  if (word == long_form) return true;
  if (word.starts_with(long_form + "=")) {
    attached = std::string(word.substr(long_form.size() + 1));
    return true;
  }
  if (short_name == '\0' || word.size() < 2 || word[0] != '-' || word[1] != short_name) {
    return false;
  }
  if (word.size() > 2) attached = std::string(word.substr(2));
  return true;
}

}  // namespace xfer::cli
