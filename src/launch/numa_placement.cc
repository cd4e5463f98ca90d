#include "launch/numa_placement.h"

#include <linux/mempolicy.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "common/node_mask.h"
#include "topology/cpu_list.h"

namespace xfer::launch {
namespace {

// The nodes sysfs lists ("node0", "node1", ...), ascending.
std::vector<int> Nodes(const topology::SysfsReader& sysfs) {
  std::vector<int> nodes;
  for (const std::string& name : sysfs.List("/sys/devices/system/node")) {
    if (name.size() > 4 && name.starts_with("node") &&
        name.find_first_not_of("0123456789", 4) == std::string::npos) {
      nodes.push_back(std::stoi(name.substr(4)));
    }
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::string NodeList(const std::vector<int>& nodes) {
  return nodes.empty() ? std::string("none") : topology::FormatCpuList(nodes);
}

Status SetAffinity(const std::vector<int>& cpus, std::string_view what) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(static_cast<size_t>(cpu), &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    return errno == EINVAL
               ? InvalidArgument(fmt::format("{}: CPUs {} are none of this host's online ones",
                                             what, topology::FormatCpuList(cpus)))
               : IoError(fmt::format("{}: sched_setaffinity: {}", what, std::strerror(errno)));
  }
  return Status::Ok();
}

// Runs the process on `node`'s CPUs, binds its later allocations there and
// moves the pages it has (numa_run_on_node, numa_set_membind,
// numa_migrate_pages, as perftest). `what` names who asked. Pages that do
// not move are said in `note`.
Status BindToNode(int node, const topology::SysfsReader& sysfs, std::string_view what,
                  std::string& note) {
  const std::vector<int> nodes = Nodes(sysfs);
  if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) {
    return InvalidArgument(fmt::format("{}: NUMA node {} is not one of this host's ({})", what,
                                       node, NodeList(nodes)));
  }
  const auto cpulist = sysfs.ReadText(fmt::format("/sys/devices/system/node/node{}/cpulist", node));
  if (!cpulist.known()) {
    return InvalidArgument(fmt::format("{}: NUMA node {} lists no CPUs", what, node));
  }
  auto cpus = topology::ParseCpuList(*cpulist.value);
  if (!cpus.ok()) return cpus.status().WithContext(fmt::format("{}: node {}'s cpulist", what, node));
  XFER_RETURN_IF_ERROR(SetAffinity(*cpus, what));
  const int target[] = {node};
  const NodeMask to(target);
  if (syscall(SYS_set_mempolicy, MPOL_BIND, to.data(), NodeMask::MaxNode()) != 0) {
    return IoError(fmt::format("{}: set_mempolicy(MPOL_BIND, node {}): {}", what, node,
                               std::strerror(errno)));
  }
  const NodeMask from(nodes);
  const long left = syscall(SYS_migrate_pages, 0, NodeMask::MaxNode(), from.data(), to.data());
  if (left < 0) {
    note = fmt::format("; its pages were not migrated: {}", std::strerror(errno));
  } else if (left > 0) {
    note = fmt::format("; {} of its pages could not be migrated", left);
  }
  return Status::Ok();
}

// The NUMA node of the CPU the calling thread runs on; -1 when unknown.
int CurrentNode() {
  unsigned cpu = 0;
  unsigned node = 0;
  return getcpu(&cpu, &node) == 0 ? static_cast<int>(node) : -1;
}

}  // namespace

std::string PlacementDevice(const bench::BenchParams& params, const topology::SysfsReader& sysfs) {
  if (!params.verbs.device.empty()) return params.verbs.device;
  std::vector<std::string> devices = sysfs.List("/sys/class/infiniband");
  std::sort(devices.begin(), devices.end());
  // Over verbs: named, perftest's wire, or the default on a host with an
  // RDMA device (launch/run_benchmark.h, ChooseStack).
  const bool verbs = params.transport == "verbs" || params.wire == bench::Wire::kPerftest ||
                     (!params.wire && params.transport.empty() && !devices.empty());
  if (!verbs || devices.empty()) return "";
  return devices.front();
}

Status PlaceProcess(bench::BenchParams& params, const std::string& device,
                    const topology::SysfsReader& sysfs) {
  std::string did;
  std::string note;
  if (!params.pin_cores.empty()) {
    XFER_RETURN_IF_ERROR(SetAffinity(params.pin_cores, "--pin_cores"));
    did = fmt::format("pinned to CPUs {} (--pin_cores)", topology::FormatCpuList(params.pin_cores));
  } else if (params.disable_numa) {
    did = "not placed (--disable_numa)";
  } else if (params.numa_node >= 0) {
    XFER_RETURN_IF_ERROR(BindToNode(params.numa_node, sysfs, "--numa_node", note));
    did = fmt::format("bound to NUMA node {} (--numa_node): its CPUs and its memory{}",
                      params.numa_node, note);
  } else {
    cpu_set_t mine;
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (sched_getaffinity(0, sizeof(mine), &mine) == 0 && online > 0 &&
        CPU_COUNT(&mine) < online) {
      did = fmt::format(
          "left where it was started: on {} of the {} online CPUs (taskset or numactl chose)",
          CPU_COUNT(&mine), online);
    } else if (device.empty()) {
      did = "not placed: the run has no RDMA device whose node to follow";
    } else {
      const auto node =
          sysfs.ReadInteger(fmt::format("/sys/class/infiniband/{}/device/numa_node", device));
      if (!node.known() || *node.value < 0) {
        did = fmt::format("not placed: {} reports no NUMA node", device);
      } else if (Status bound = BindToNode(static_cast<int>(*node.value), sysfs, device, note);
                 !bound.ok()) {
        // As perftest: the default carries on unplaced.
        did = fmt::format("not placed: {}", bound.ToString());
      } else {
        did = fmt::format("bound to NUMA node {}, {}'s: its CPUs and its memory{}", *node.value,
                          device, note);
      }
    }
  }
  params.numa_node_run = CurrentNode();
  params.numa_placement = did;
  return Status::Ok();
}

}  // namespace xfer::launch
