// What `xfer matrix` records about the machine it runs on: the
// HostFingerprint of bench/matrix/host_fingerprint.h, read from the kernel
// (gethostname, uname, sysconf), /proc/cpuinfo and the verbs device
// catalog. Never guesses: a value that cannot be read is "unknown" (a
// count, 0), never a plausible default. Never throws, never aborts.
// Thread-safe: every function reads system state only.
#ifndef XFER_REPORT_MATRIX_HOST_PROBE_H_
#define XFER_REPORT_MATRIX_HOST_PROBE_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench/matrix/host_fingerprint.h"
#include "common/build_options.h"
#if XFER_WITH_VERBS
#include "verbs/device_catalog.h"
#endif

namespace xfer::report {

// This machine's fingerprint, carrying `xfer_version` as given. rdma lists
// every port of every device verbs::ListDevices() sees; it is empty when
// there is no device, when listing fails (a fingerprint records hardware,
// it does not diagnose it: `xfer devices` does), and in a build without
// RDMA verbs.
matrix::HostFingerprint ProbeHost(std::string_view xfer_version);

// The CPU model named by /proc/cpuinfo text `cpuinfo`: the first
// "model name" (x86, newer arm64 kernels); else the first of "Hardware"
// (arm32), "cpu model" (MIPS), "cpu" (POWER), "uarch" (RISC-V); else, for
// arm64, "CPU implementer 0x41 part 0xd0c" from those two keys (the raw
// MIDR codes, not a marketing name looked up from them); else "unknown".
std::string CpuModelFromCpuinfo(std::string_view cpuinfo);

#if XFER_WITH_VERBS
// One entry per port of `devices`, in catalog order. state drops the
// "PORT_" prefix ("ACTIVE"); rate_gbps is the signalling rate, 0 when the
// port reports no speed or width.
std::vector<matrix::RdmaPortFingerprint> RdmaPortsFromDevices(
    std::span<const verbs::DeviceInfo> devices);
#endif

}  // namespace xfer::report

#endif  // XFER_REPORT_MATRIX_HOST_PROBE_H_
