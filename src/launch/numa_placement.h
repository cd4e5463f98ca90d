// Where a benchmark process runs and allocates, as perftest 26.04 places it
// (its commit "Add NUMA-aware CPU and memory binding"): by default on the
// NUMA node of the RDMA device that serves the run -- its threads on that
// node's CPUs, its memory bound there, pages it already has migrated --
// unless the process is already restricted to fewer CPUs than are online
// (taskset or numactl chose for it); --pin_cores pins it to a CPU list,
// --numa_node to a node, --disable_numa leaves it. Applied once, before the
// process starts a thread (they inherit it) or forks the loopback server.
// Through the kernel's own calls: sched_setaffinity, set_mempolicy,
// migrate_pages; getcpu says where it then runs.
#ifndef XFER_LAUNCH_NUMA_PLACEMENT_H_
#define XFER_LAUNCH_NUMA_PLACEMENT_H_

#include <string>
#include <vector>

#include "bench/model/bench_params.h"
#include "topology/sysfs_reader.h"
#include "xfer/status.h"

namespace xfer::launch {

// The RDMA device whose node the default follows: -d, else, when the run
// is over verbs, the first device sysfs lists (as ibv_get_device_list's
// first); "" when the run has no device (shm, tcp).
std::string PlacementDevice(const bench::BenchParams& params,
                            const topology::SysfsReader& sysfs);

// Places the calling process as `params` asks (pin_cores, numa_node,
// disable_numa) and says what it did: BenchParams::numa_node_run and
// numa_placement are set. Errors: kInvalidArgument for a node or CPU this
// host does not have (naming what it has); kIoError when the kernel
// refuses.
Status PlaceProcess(bench::BenchParams& params, const std::string& device,
                    const topology::SysfsReader& sysfs);

}  // namespace xfer::launch

#endif  // XFER_LAUNCH_NUMA_PLACEMENT_H_
