// `xfer doctor [-d|--ib-dev NAME] [-i|--ib-port PORT] [--run RUN.json]
// [--json FILE] [--sysfs-root DIR] [-h|--help]`: what limits this host's
// RDMA bandwidth, and, given a run, how close the run came to it.
//
// Values may be attached (-dNAME, --run=FILE) or follow as the next word, as
// in `xfer devices`. -d and -i take perftest's spelling.
#ifndef XFER_CLI_DOCTOR_FLAGS_H_
#define XFER_CLI_DOCTOR_FLAGS_H_

#include <span>
#include <string>
#include <string_view>

#include "cli/flags.h"
#include "xfer/status.h"

namespace xfer::cli {

// The subcommand word, argv[1].
inline constexpr std::string_view kDoctorCommand = "doctor";

// Parses the words after "doctor". Yields kDoctor with ParsedCommand::doctor
// filled in, or kHelp with DoctorHelp() when -h or --help appears anywhere.
// Thread-safe; `args` is read during the call only.
// Errors: kInvalidArgument naming the flag for an unknown option, a missing
// or empty value, a repeated flag ("-i/--ib-port: Duplicated argument"), a
// port that is not a whole number from 1 to 255, or a positional word.
Result<ParsedCommand> ParseDoctorCommand(std::span<const std::string> args);

// `xfer doctor --help`. Ends with a newline.
std::string DoctorHelp();

}  // namespace xfer::cli

#endif  // XFER_CLI_DOCTOR_FLAGS_H_
