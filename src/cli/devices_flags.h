// `xfer devices [-d|--ib-dev NAME] [--json FILE] [-h|--help]`: list the
// RDMA devices libibverbs sees, their ports and GID tables.
//
// Values may be attached (-dNAME, --ib-dev=NAME, --json=FILE) or follow as
// the next word, as with getopt. -d takes perftest's spelling so that the
// same NAME works in both places.
#ifndef XFER_CLI_DEVICES_FLAGS_H_
#define XFER_CLI_DEVICES_FLAGS_H_

#include <span>
#include <string>
#include <string_view>

#include "cli/flags.h"
#include "xfer/status.h"

namespace xfer::cli {

// The subcommand word, argv[1].
inline constexpr std::string_view kDevicesCommand = "devices";

// Parses the words after "devices". Yields kDevices with
// ParsedCommand::devices filled in, or kHelp with DevicesHelp() when -h or
// --help appears anywhere (help wins over every other problem on the line).
// Thread-safe; `args` is read during the call only.
// Errors: kInvalidArgument naming the flag for an unknown option ("unknown
// option '--bogus' (see 'xfer devices --help')"), a missing or empty value,
// a repeated flag ("-d/--ib-dev: Duplicated argument"), or a positional word.
Result<ParsedCommand> ParseDevicesCommand(std::span<const std::string> args);

// `xfer devices --help`. Ends with a newline.
std::string DevicesHelp();

}  // namespace xfer::cli

#endif  // XFER_CLI_DEVICES_FLAGS_H_
