#include "cli/devices_flags.h"

#include <fmt/format.h>

#include <optional>

#include "cli/value_flags.h"

namespace xfer::cli {
namespace {

using DevicesFlag = ValueFlag<std::string DevicesRequest::*>;

constexpr DevicesFlag kDevicesFlags[] = {
    {'d', "ib-dev", &DevicesRequest::device},
    {'\0', "json", &DevicesRequest::json_path},
};

Status Apply(std::span<const std::string> args, DevicesRequest& request) {
  bool seen[std::size(kDevicesFlags)] = {};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    std::optional<std::string> value;
    const DevicesFlag* flag =
        MatchValueFlag<std::string DevicesRequest::*>(kDevicesFlags, word, value);
    if (flag == nullptr) {
      if (word.starts_with('-')) {
        return InvalidArgument(fmt::format(
            "unknown option '{}' (see 'xfer devices --help')", word));
      }
      return InvalidArgument(fmt::format(
          "devices: unexpected argument '{}' (use -d NAME to pick a device)",
          word));
    }
    const std::string name = ValueFlagName(flag->short_name, flag->long_name);
    const auto slot = static_cast<size_t>(flag - kDevicesFlags);
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
    if (IsHelpFlag(word)) {
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
