// The flag table: one row per command-line flag (name, default, help,
// validator). The rows are split by Group across two files, core_flags.cc
// (perftest flags xfer implements, and xfer's own) and compat_flags.cc
// (verbs-only flags and perftest flags xfer does not support yet).
#ifndef XFER_CLI_FLAG_TABLE_H_
#define XFER_CLI_FLAG_TABLE_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cli/flag_spec.h"
#include "xfer/status.h"

namespace xfer::cli {

// Rows of Group kPerftest and kXfer. Static storage.
std::span<const FlagSpec> CoreFlags();

// Rows of Group kVerbs and kUnsupported. Static storage.
std::span<const FlagSpec> CompatFlags();

// Every row, core first. The pointers are into static storage.
std::vector<const FlagSpec*> AllFlags();

// The row whose short name is `short_name` or one of whose long names is
// `long_name` (pass "" / '\0' to skip either); nullptr when none.
const FlagSpec* FindFlag(char short_name, std::string_view long_name);

// ParseIntegerInRange with the message prefixed by the flag's name:
// "-t/--tx-depth: 0 is out of range 1..15000".
Result<int64_t> ParseFlagInteger(const FlagSpec& spec, std::string_view value,
                                 int64_t min, int64_t max);

// How the flag was typed, for notes: "-d mlx5_0", "--tclass 3", "-R".
std::string TypedFlag(const FlagSpec& spec, std::string_view value);

// Row appliers shared by both tables.

// Sets the BenchParams integer field kField to a value in [kMin, kMax].
template <auto kField, int64_t kMin, int64_t kMax>
Status SetInteger(const FlagSpec& spec, std::string_view value,
                  ParseState& state) {
  Result<int64_t> parsed = ParseFlagInteger(spec, value, kMin, kMax);
  if (!parsed.ok()) return parsed.status();
  using Field = std::remove_reference_t<decltype(state.params.*kField)>;
  static_assert(std::is_integral_v<Field>);
  state.params.*kField = static_cast<Field>(*parsed);
  return Status::Ok();
}

// Sets the BenchParams bool field kField.
template <auto kField>
Status SetTrue(const FlagSpec&, std::string_view, ParseState& state) {
  state.params.*kField = true;
  return Status::Ok();
}

}  // namespace xfer::cli

#endif  // XFER_CLI_FLAG_TABLE_H_
