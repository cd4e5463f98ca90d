#include "cli/version.h"

#include <fmt/format.h>

#include "common/build_options.h"
#include "xfer/device.h"
#include "xfer/engine.h"
#if XFER_WITH_VERBS
#include "perftest/negotiation.h"
#include "perftest/wire_format.h"
#endif

// The build passes the project version; see src/cli/CMakeLists.txt.
#ifndef XFER_VERSION
#error \
    "XFER_VERSION must be defined (CMake: XFER_VERSION=\"${PROJECT_VERSION}\")"
#endif

namespace xfer::cli {

std::string_view XferVersion() { return XFER_VERSION; }

std::string PerftestCompatibilityText() {
#if XFER_WITH_VERBS
  return fmt::format(
      "perftest compatibility: command line and output of perftest {} (version {})\n"
      "wire version advertised: {} (negotiates parameters with {:.2f}+ peers; peers from "
      "{:.2f} on, {} included, run without negotiation)\n",
      kPerftestRelease, kPerftestVersion, perftest::kAdvertisedVersion,
      perftest::kNegotiationVersion, perftest::kOldestCompatibleVersion, kPerftestVersion);
#else
  return fmt::format(
      "perftest compatibility: command line and output of perftest {} (version {})\n"
      "wire version advertised: none (this build has no RDMA verbs, which perftest's wire "
      "protocol runs on)\n",
      kPerftestRelease, kPerftestVersion);
#endif
}

std::string RdmaVerbsSupport() {
#if XFER_WITH_VERBS
  return fmt::format("yes (rdma-core's libibverbs {} at build time)", XFER_IBVERBS_VERSION);
#else
  return "no (built without rdma-core: configured with XFER_VERBS=OFF, or libibverbs-dev "
         "was not installed)";
#endif
}

std::string VersionText() {
  return fmt::format("xfer {}\n{}transports: {}\nRDMA verbs: {}\nCUDA device memory: {}\n",
                     XferVersion(), PerftestCompatibilityText(),
                     fmt::join(BuiltinTransports(), ", "), RdmaVerbsSupport(), CudaSupport());
}

}  // namespace xfer::cli
