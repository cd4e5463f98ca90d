// The only translation unit that sees CLI11. CLI11 reports problems with
// exceptions; they are caught here and never leave Tokenize().
#include "cli/tokenizer.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <utility>

namespace xfer::cli {
namespace {

// CLI11's spelling of a row's names: "-s,--size" or "-z,--a,--b".
std::string CliNames(const FlagSpec& spec) {
  std::string names;
  if (spec.short_name != '\0') names = std::string{'-', spec.short_name};
  std::string_view longs = spec.long_names;
  while (!longs.empty()) {
    const size_t comma = longs.find(',');
    if (!names.empty()) names += ',';
    names += "--";
    names += longs.substr(0, comma);
    if (comma == std::string_view::npos) break;
    longs.remove_prefix(comma + 1);
  }
  return names;
}

// The row CLI11 means by `name` ("--size" or "-s"), or nullptr.
const FlagSpec* RowForCliName(std::span<const FlagSpec* const> flags,
                              std::string_view name) {
  for (const FlagSpec* spec : flags) {
    const std::string all = CliNames(*spec);
    size_t start = 0;
    while (start <= all.size()) {
      const size_t comma = all.find(',', start);
      const size_t end = comma == std::string::npos ? all.size() : comma;
      if (std::string_view(all).substr(start, end - start) == name) {
        return spec;
      }
      start = end + 1;
    }
  }
  return nullptr;
}

// CLI11 words these "--size: 1 required  missing"; say it with our name.
Status MismatchError(std::span<const FlagSpec* const> flags,
                     const CLI::ParseError& error) {
  const std::string what = error.what();
  const size_t colon = what.find(':');
  const FlagSpec* spec = RowForCliName(flags, what.substr(0, colon));
  if (spec == nullptr || colon == std::string::npos) {
    return InvalidArgument(what);
  }
  if (what.find("missing", colon) != std::string::npos) {
    return InvalidArgument(DisplayName(*spec) + ": missing value");
  }
  return InvalidArgument(DisplayName(*spec) + what.substr(colon));
}

using OptionRows = std::vector<std::pair<CLI::Option*, const FlagSpec*>>;

// Pairs each occurrence (CLI11's parse order) with its own value: CLI11
// keeps one result per occurrence, in order, under MultiOptionPolicy
// TakeAll.
void CollectFlags(const CLI::App& app, const OptionRows& rows, Tokens& tokens) {
  std::vector<size_t> seen(rows.size(), 0);
  for (const CLI::Option* option : app.parse_order()) {
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].first != option) continue;
      const std::vector<std::string>& results = option->results();
      const size_t index = seen[i]++;
      std::string value = index < results.size() ? results[index] : "";
      const bool switch_flag = !TakesValue(*rows[i].second);
      const bool explicit_value = switch_flag && value != "true";
      if (switch_flag && !explicit_value) value.clear();
      tokens.flags.push_back(
          {rows[i].second, std::move(value), explicit_value});
    }
  }
}

void CollectRest(const CLI::App& app, const CLI::Option& host, Tokens& tokens) {
  for (const std::string& value : host.results()) {
    tokens.positionals.push_back(value);
  }
  bool after_dashes = false;
  for (const std::string& extra : app.remaining()) {
    if (extra == "--" && !after_dashes) {
      after_dashes = true;
    } else if (!after_dashes && extra.size() > 1 && extra[0] == '-') {
      tokens.unknown.push_back(extra);
    } else {
      tokens.positionals.push_back(extra);
    }
  }
}

}  // namespace

Result<Tokens> Tokenize(std::span<const FlagSpec* const> flags,
                        std::span<const std::string> args) {
  CLI::App app;
  app.set_help_flag();  // -h/--help is a row like any other
  app.allow_extras();
  OptionRows rows;
  CLI::Option* host = nullptr;
  try {
    for (const FlagSpec* spec : flags) {
      const std::string names = CliNames(*spec);
      CLI::Option* option =
          TakesValue(*spec) ? app.add_option(names) : app.add_flag(names);
      option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      rows.emplace_back(option, spec);
    }
    host = app.add_option("host");
    host->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  } catch (const CLI::Error& error) {
    return Internal(fmt::format("flag table: {}", error.what()));
  }
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::ArgumentMismatch& error) {
    return MismatchError(flags, error);
  } catch (const CLI::Error& error) {
    return InvalidArgument(error.what());
  }
  Tokens tokens;
  CollectFlags(app, rows, tokens);
  CollectRest(app, *host, tokens);
  return tokens;
}

}  // namespace xfer::cli
