// Version strings: the xfer release and the perftest release whose command
// line and output xfer mirrors.
#ifndef XFER_CLI_VERSION_H_
#define XFER_CLI_VERSION_H_

#include <string>
#include <string_view>

namespace xfer::cli {

// The perftest VERSION string xfer mirrors (perftest 4.5-0.17, Debian 12).
inline constexpr std::string_view kPerftestVersion = "6.06";

// The xfer release, CMake's PROJECT_VERSION ("0.1.0").
std::string_view XferVersion();

// What `xfer --version` prints: "xfer 0.1.0 (perftest 6.06)\n".
std::string VersionText();

}  // namespace xfer::cli

#endif  // XFER_CLI_VERSION_H_
