#include "cli/version.h"

#include <fmt/format.h>

// The build passes the project version; see src/cli/CMakeLists.txt.
#ifndef XFER_VERSION
#error \
    "XFER_VERSION must be defined (CMake: XFER_VERSION=\"${PROJECT_VERSION}\")"
#endif

namespace xfer::cli {

std::string_view XferVersion() { return XFER_VERSION; }

std::string VersionText() {
  return fmt::format("xfer {} (perftest {})\n", XferVersion(),
                     kPerftestVersion);
}

}  // namespace xfer::cli
