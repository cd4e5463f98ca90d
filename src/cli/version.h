// Version strings: the xfer release, and the perftest versions xfer is
// compatible with, each saying what it covers.
#ifndef XFER_CLI_VERSION_H_
#define XFER_CLI_VERSION_H_

#include <string>
#include <string_view>

namespace xfer::cli {

// The perftest release whose command line and output xfer follows: tag
// 4.5-0.17 (Debian 12), which reports itself as VERSION "6.06".
inline constexpr std::string_view kPerftestRelease = "4.5-0.17";
inline constexpr std::string_view kPerftestVersion = "6.06";

// The xfer release, CMake's PROJECT_VERSION ("0.1.0").
std::string_view XferVersion();

// What each perftest version xfer names means, two lines ending in '\n'
// (the README quotes them):
//   "perftest compatibility: command line and output of perftest 4.5-0.17
//    (version 6.06)\n"
//   "wire version advertised: 6.28 (negotiates parameters with 6.28+ peers;
//    peers from 5.70 on, 6.06 included, run without negotiation)\n"
// The wire numbers come from src/perftest (kAdvertisedVersion,
// kNegotiationVersion, kOldestCompatibleVersion).
std::string PerftestCompatibilityText();

// "yes (rdma-core's libibverbs 44.0 at build time)", or "no (...)" saying
// why this build has no RDMA verbs.
std::string RdmaVerbsSupport();

// What `xfer --version` prints: "xfer 0.1.0\n", then
// PerftestCompatibilityText(), then one line each for the transports this
// build has ("transports: shm, tcp, verbs"), RDMA verbs and CUDA device
// memory.
std::string VersionText();

}  // namespace xfer::cli

#endif  // XFER_CLI_VERSION_H_
