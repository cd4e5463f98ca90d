// The --help screens, generated from the flag table so that help and parser
// cannot disagree.
#ifndef XFER_CLI_HELP_TEXT_H_
#define XFER_CLI_HELP_TEXT_H_

#include <span>
#include <string>
#include <string_view>

#include "cli/benchmark_catalog.h"
#include "xfer/engine.h"

namespace xfer::cli {

// `xfer --help`: usage and the list of tests. `transports` are the names
// --transport accepts; `perftest_transport` the one perftest's wire runs on
// ("" when this build has none: cli/flags.h, ParserConfig). Ends with a
// newline.
std::string TopLevelHelp(std::span<const std::string> transports,
                         std::string_view perftest_transport,
                         std::span<const TransportOptionInfo> transport_options);

// The transports' options, one line each, from their own tables: the flag
// that sets it, transport and key, what it takes, its default, its doc.
// "" when no built-in transport takes any. Ends with a newline.
std::string TransportOptionLines(std::span<const TransportOptionInfo> transport_options);

// `xfer <test> --help`: perftest-like usage listing every flag `test`
// accepts, with the test's defaults. Ends with a newline.
std::string TestHelp(const TestInfo& test, std::span<const std::string> transports,
                     std::string_view perftest_transport);

}  // namespace xfer::cli

#endif  // XFER_CLI_HELP_TEXT_H_
