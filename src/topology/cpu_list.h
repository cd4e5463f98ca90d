// The kernel's CPU list syntax, as taskset, numactl, sysfs (node<N>/cpulist,
// cpu/online) and perftest's --pin_cores write it: "0-3,8,12-15"; spaces
// after the commas are taken too ("0, 1, 2").
#ifndef XFER_TOPOLOGY_CPU_LIST_H_
#define XFER_TOPOLOGY_CPU_LIST_H_

#include <string>
#include <string_view>
#include <vector>

#include "xfer/status.h"

namespace xfer::topology {

// The most CPUs a list may name: the kernel's cpu_set_t holds 1024.
inline constexpr int kMaxCpus = 1024;

// The CPUs `text` names, ascending, each once. Errors: kInvalidArgument
// naming the part that is no CPU or range (a range whose end is below its
// start, a CPU at or above kMaxCpus, an empty list).
Result<std::vector<int>> ParseCpuList(std::string_view text);

// The shortest list naming `cpus` (ascending): {0,1,2,3,8} -> "0-3,8".
std::string FormatCpuList(const std::vector<int>& cpus);

}  // namespace xfer::topology

#endif  // XFER_TOPOLOGY_CPU_LIST_H_
