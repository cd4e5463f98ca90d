#include "cli/doctor_flags.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>

#include "cli/value_flags.h"

namespace xfer::cli {
namespace {

enum class Field { kDevice, kPort, kRun, kJson, kSysfsRoot, kNicMap };

using DoctorFlag = ValueFlag<Field>;

constexpr DoctorFlag kDoctorFlags[] = {
    {'d', "ib-dev", Field::kDevice},
    {'i', "ib-port", Field::kPort},
    {'\0', "run", Field::kRun},
    {'\0', "json", Field::kJson},
    {'\0', "sysfs-root", Field::kSysfsRoot},
    {'\0', "nic-map", Field::kNicMap},
};

Status Store(const DoctorFlag& flag, std::string value, DoctorRequest& request) {
  switch (flag.field) {
    case Field::kDevice: request.device = std::move(value); return Status::Ok();
    case Field::kRun: request.run_path = std::move(value); return Status::Ok();
    case Field::kJson: request.json_path = std::move(value); return Status::Ok();
    case Field::kSysfsRoot: request.sysfs_root = std::move(value); return Status::Ok();
    case Field::kNicMap: request.nic_map_path = std::move(value); return Status::Ok();
    case Field::kPort: {
      int port = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), port);
      if (error != std::errc() || end != value.data() + value.size() || port < 1 || port > 255) {
        return InvalidArgument(fmt::format("{}: '{}' is not a port number (1 to 255)",
                                           ValueFlagName(flag.short_name, flag.long_name), value));
      }
      request.port = port;
      return Status::Ok();
    }
  }
  return Internal("unhandled doctor flag");
}

Status Apply(std::span<const std::string> args, DoctorRequest& request) {
  bool seen[std::size(kDoctorFlags)] = {};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    std::optional<std::string> value;
    const DoctorFlag* flag = MatchValueFlag<Field>(kDoctorFlags, word, value);
    if (flag == nullptr) {
      if (word.starts_with('-')) {
        return InvalidArgument(fmt::format("unknown option '{}' (see 'xfer doctor --help')", word));
      }
      return InvalidArgument(
          fmt::format("doctor: unexpected argument '{}' (use --run FILE to judge a run)", word));
    }
    const std::string name = ValueFlagName(flag->short_name, flag->long_name);
    const auto slot = static_cast<size_t>(flag - kDoctorFlags);
    if (seen[slot]) return InvalidArgument(name + ": Duplicated argument");
    seen[slot] = true;
    if (!value.has_value()) {
      if (i + 1 >= args.size()) return InvalidArgument(name + ": missing value");
      value = args[++i];
    }
    if (value->empty()) return InvalidArgument(name + ": empty value");
    XFER_RETURN_IF_ERROR(Store(*flag, std::move(*value), request));
  }
  return Status::Ok();
}

}  // namespace

std::string DoctorHelp() {
  return "Usage:\n"
         "  xfer doctor [options]\n"
         "\n"
         "Reads, from sysfs, what limits RDMA bandwidth on this host: port state,\n"
         "rate and link layer, the netdev (speed, MTU) and the active MTU derived\n"
         "from it, the PCIe link of the device and of every bridge up to the root\n"
         "port, the NUMA node, hugepages, the CPU governor, and which RDMA devices\n"
         "serve each GPU's and NUMA node's memory. Then prints the\n"
         "expected goodput ceiling and the factor that binds it. What cannot be\n"
         "read is printed as unknown, with the reason.\n"
         "With --run it prints, for the run: expected X, measured Y (Z %), bound\n"
         "by W, or 'not link-bound' when the run stayed below half of every\n"
         "ceiling. Units: Gb/s = 10^9 bit/s, GB/s = 10^9 B/s, MiB/s = 2^20 B/s.\n"
         "Exit status 0 when the findings were printed, a host without an RDMA\n"
         "device included (the verdict says so); 1 when the run file is bad,\n"
         "-d names no device, or --sysfs-root cannot be read; 2 on a usage error\n"
         "(an unwritable --json, an output over an input).\n"
         "\n"
         "Options:\n"
         "  -d, --ib-dev=<dev>     Only device <dev> (default: the run's, else all)\n"
         "  -i, --ib-port=<port>   Only port <port> (default: the run's, else all)\n"
         "      --run=<file>       Judge a run: a test's or xfer matrix's --json file\n"
         "      --json=<file>      Also write the findings as JSON to <file>\n"
         "      --sysfs-root=<dir> Read /sys and /proc under <dir> (default /)\n"
         "      --nic-map=<file>   Correct which RDMA devices serve which GPU or NUMA node\n"
         "                         (JSON; see docs/rails.md)\n"
         "  -h, --help             Show this help screen\n";
}

Result<ParsedCommand> ParseDoctorCommand(std::span<const std::string> args) {
  ParsedCommand command;
  for (const std::string& word : args) {
    if (IsHelpFlag(word)) {
      command.action = ParsedCommand::Action::kHelp;
      command.help_text = DoctorHelp();
      return command;
    }
  }
  command.action = ParsedCommand::Action::kDoctor;
  XFER_RETURN_IF_ERROR(Apply(args, command.doctor));
  return command;
}

}  // namespace xfer::cli
