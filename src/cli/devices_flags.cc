#include "cli/devices_flags.h"

#include <fmt/format.h>

#include <optional>

namespace xfer::cli {
namespace {

struct ValueFlag {
  char short_name;          // '\0' when none
  std::string_view long_name;
  std::string DevicesRequest::*field;
};

constexpr ValueFlag kFlags[] = {
    {'d', "ib-dev", &DevicesRequest::device},
    {'\0', "json", &DevicesRequest::json_path},
};

std::string DisplayName(const ValueFlag& flag) {
  return flag.short_name != '\0'
             ? fmt::format("-{}/--{}", flag.short_name, flag.long_name)
             : fmt::format("--{}", flag.long_name);
}

bool IsHelp(std::string_view word) { return word == "-h" || word == "--help"; }

// The flag `word` names, with its attached value if any ("-dNAME",
// "--json=FILE"); nullptr when `word` is no known flag.
const ValueFlag* Match(std::string_view word,
                       std::optional<std::string>& attached) {
  for (const ValueFlag& flag : kFlags) {
    const std::string long_form = fmt::format("--{}", flag.long_name);
    if (word == long_form) return &flag;
    if (word.starts_with(long_form + "=")) {
      attached = std::string(word.substr(long_form.size() + 1));
      return &flag;
    }
    if (flag.short_name == '\0' || word.size() < 2 || word[0] != '-' ||
        word[1] != flag.short_name) {
      continue;
    }
    if (word.size() > 2) attached = std::string(word.substr(2));
    return &flag;
  }
  return nullptr;
}

Status Apply(std::span<const std::string> args, DevicesRequest& request) {
  bool seen[std::size(kFlags)] = {};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    std::optional<std::string> value;
    const ValueFlag* flag = Match(word, value);
    if (flag == nullptr) {
      if (word.starts_with('-')) {
        return InvalidArgument(fmt::format(
            "unknown option '{}' (see 'xfer devices --help')", word));
      }
      return InvalidArgument(fmt::format(
          "devices: unexpected argument '{}' (use -d NAME to pick a device)",
          word));
    }
    const std::string name = DisplayName(*flag);
    const auto slot = static_cast<size_t>(flag - kFlags);
    if (seen[slot]) return InvalidArgument(name + ": Duplicated argument");
    seen[slot] = true;
    if (!value.has_value()) {
      if (i + 1 >= args.size()) {
        return InvalidArgument(name + ": missing value");
      }
      value = args[++i];
    }
    if (value->empty()) return InvalidArgument(name + ": empty value");
    request.*(flag->field) = std::move(*value);
  }
  return Status::Ok();
}

}  // namespace

std::string DevicesHelp() {
  return "Usage:\n"
         "  xfer devices [options]\n"
         "\n"
         "Lists the RDMA devices libibverbs sees: device limits, port state,\n"
         "MTU, link rate (Gb/s = 10^9 bit/s), link layer and the GID table,\n"
         "as ibv_devinfo -v and ibstatus do. Exit status 1 when there is no\n"
         "device (the message says why; --json then holds an empty list and\n"
         "the reason) or -d names none, 2 when --json cannot be written.\n"
         "\n"
         "Options:\n"
         "  -d, --ib-dev=<dev>  List only device <dev> (default all)\n"
         "      --json=<file>   Also write the listing as JSON to <file>\n"
         "  -h, --help          Show this help screen\n";
}

Result<ParsedCommand> ParseDevicesCommand(std::span<const std::string> args) {
  ParsedCommand command;
  for (const std::string& word : args) {
    if (IsHelp(word)) {
      command.action = ParsedCommand::Action::kHelp;
      command.help_text = DevicesHelp();
      return command;
    }
  }
  command.action = ParsedCommand::Action::kDevices;
  XFER_RETURN_IF_ERROR(Apply(args, command.devices));
  return command;
}

}  // namespace xfer::cli
