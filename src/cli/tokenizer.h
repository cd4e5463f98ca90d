// Splits a test's arguments into flag occurrences, positionals and unknown
// options, using CLI11 for the getopt-like syntax (-s 64, -s64, --size=64,
// --size 64, grouped switches -aN, "--" ends the options). Values are not
// interpreted here; the flag table's rows do that.
#ifndef XFER_CLI_TOKENIZER_H_
#define XFER_CLI_TOKENIZER_H_

#include <span>
#include <string>
#include <vector>

#include "cli/flag_spec.h"
#include "xfer/status.h"

namespace xfer::cli {

struct FlagOccurrence {
  const FlagSpec* spec;  // a row of `flags`
  std::string value;     // empty for a switch given without "=value"
  bool explicit_value;   // a switch given as --name=value
};

struct Tokens {
  std::vector<FlagOccurrence> flags;     // in command-line order, repeats kept
  std::vector<std::string> positionals;  // in order
  std::vector<std::string> unknown;      // unrecognised options, in order
};

// Tokenizes args (the arguments after the test name) against `flags`.
// The FlagSpec pointers must outlive the returned Tokens.
// Errors: kInvalidArgument when a flag that takes a value has none
// ("-s/--size: missing value"); kInternal when the table itself is
// malformed (duplicate names).
Result<Tokens> Tokenize(std::span<const FlagSpec* const> flags,
                        std::span<const std::string> args);

}  // namespace xfer::cli

#endif  // XFER_CLI_TOKENIZER_H_
