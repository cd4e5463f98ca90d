// The --help screens, generated from the flag table so that help and parser
// cannot disagree.
#ifndef XFER_CLI_HELP_TEXT_H_
#define XFER_CLI_HELP_TEXT_H_

#include <span>
#include <string>

#include "cli/benchmark_catalog.h"

namespace xfer::cli {

// `xfer --help`: usage and the list of tests. `transports` are the names
// --transport accepts. Ends with a newline.
std::string TopLevelHelp(std::span<const std::string> transports);

// `xfer <test> --help`: perftest-like usage listing every flag `test`
// accepts, with the test's defaults. Ends with a newline.
std::string TestHelp(const TestInfo& test,
                     std::span<const std::string> transports);

}  // namespace xfer::cli

#endif  // XFER_CLI_HELP_TEXT_H_
