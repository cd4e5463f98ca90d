// The flags of the small commands (`xfer devices`, `xfer doctor`): each
// takes one value, written "-d NAME", "-dNAME", "--ib-dev NAME" or
// "--ib-dev=NAME", and may be given once. One matcher for every such table.
#ifndef XFER_CLI_VALUE_FLAGS_H_
#define XFER_CLI_VALUE_FLAGS_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace xfer::cli {

// One flag of a table; `field` says where its value goes (a member
// pointer, an enum: the command's choice).
template <typename Field>
struct ValueFlag {
  char short_name;  // '\0' when none
  std::string_view long_name;
  Field field;
};

// "-d/--ib-dev", or "--json" for a flag without a short name.
std::string ValueFlagName(char short_name, std::string_view long_name);

// "-h" or "--help".
bool IsHelpFlag(std::string_view word);

// Whether `word` names the flag, and its attached value if it carries one
// ("-dNAME", "--json=FILE") into `attached`.
bool MatchesValueFlag(char short_name, std::string_view long_name, std::string_view word,
                      std::optional<std::string>& attached);

// The flag of `flags` that `word` names (its attached value into
// `attached`); nullptr when none.
template <typename Field>
const ValueFlag<Field>* MatchValueFlag(std::span<const ValueFlag<Field>> flags,
                                       std::string_view word,
                                       std::optional<std::string>& attached) {
  for (const ValueFlag<Field>& flag : flags) {
    if (MatchesValueFlag(flag.short_name, flag.long_name, word, attached)) return &flag;
  }
  return nullptr;
}

}  // namespace xfer::cli

#endif  // XFER_CLI_VALUE_FLAGS_H_
