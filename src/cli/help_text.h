// The --help screens, generated from the flag table so that help and parser
// cannot disagree.
#ifndef XFER_CLI_HELP_TEXT_H_
#define XFER_CLI_HELP_TEXT_H_

#include <span>
#include <string>
#include <string_view>

#include "cli/benchmark_catalog.h"

namespace xfer::cli {

// `xfer --help`: usage and the list of tests. `transports` are the names
// --transport accepts; `perftest_transport` the one perftest's wire runs on
// ("" when this build has none: cli/flags.h, ParserConfig). Ends with a
// newline.
std::string TopLevelHelp(std::span<const std::string> transports,
                         std::string_view perftest_transport);

// `xfer <test> --help`: perftest-like usage listing every flag `test`
// accepts, with the test's defaults. Ends with a newline.
std::string TestHelp(const TestInfo& test, std::span<const std::string> transports,
                     std::string_view perftest_transport);

}  // namespace xfer::cli

#endif  // XFER_CLI_HELP_TEXT_H_
