#include "cli/version.h"

#include <fmt/format.h>

#include "perftest/negotiation.h"
#include "xfer/device.h"
#include "perftest/wire_format.h"

// The build passes the project version; see src/cli/CMakeLists.txt.
#ifndef XFER_VERSION
#error \
    "XFER_VERSION must be defined (CMake: XFER_VERSION=\"${PROJECT_VERSION}\")"
#endif

namespace xfer::cli {

std::string_view XferVersion() { return XFER_VERSION; }

std::string PerftestCompatibilityText() {
  return fmt::format(
      "perftest compatibility: command line and output of perftest {} (version {})\n"
      "wire version advertised: {} (negotiates parameters with {:.2f}+ peers; peers from "
      "{:.2f} on, {} included, run without negotiation)\n",
      kPerftestRelease, kPerftestVersion, perftest::kAdvertisedVersion,
      perftest::kNegotiationVersion, perftest::kOldestCompatibleVersion, kPerftestVersion);
}

std::string VersionText() {
  return fmt::format("xfer {}\n{}CUDA device memory: {}\n", XferVersion(),
                     PerftestCompatibilityText(), CudaSupport());
}

}  // namespace xfer::cli
