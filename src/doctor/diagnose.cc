#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "common/input_file.h"
#include "doctor/doctor_report.h"

namespace xfer::doctor {
namespace {

// A --nic-map file names a few dozen devices and GPUs: anything near this
// size is not one.
constexpr size_t kMaxNicMapBytes = size_t{1} << 20;

struct PortKey {
  std::string device;
  int port;
  bool operator==(const PortKey&) const = default;
};

std::vector<std::string> HostWarnings(const HostTuning& host) {
  std::vector<std::string> warnings;
  if (host.governor.known() && host.governor.value->find("powersave") != std::string::npos) {
    warnings.push_back(fmt::format("CPU governor '{}': powersave lowers message rate and tcp/shm bandwidth",
                                   *host.governor.value));
  }
  return warnings;
}


// Which ports to read: -d/-i, else those the run used, else every port.
Result<std::vector<PortKey>> PickPorts(const topology::SysfsReader& sysfs, const DoctorOptions& options,
                                       const std::vector<RunMeasurement>& runs) {
  const std::vector<std::string> devices = topology::ListRdmaDevices(sysfs);
  const std::string where = (sysfs.root() / "sys/class/infiniband").string();
  std::vector<PortKey> keys;
  auto add = [&](const std::string& device, std::optional<int> port) {
    for (int p : topology::ListRdmaPorts(sysfs, device)) {
      if (port && p != *port) continue;
      if (std::find(keys.begin(), keys.end(), PortKey{device, p}) == keys.end()) keys.push_back({device, p});
    }
  };
  if (!options.device.empty()) {
    if (std::find(devices.begin(), devices.end(), options.device) == devices.end()) {
      return NotFound(fmt::format("no RDMA device named '{}' under {} (have: {})", options.device, where,
                                  devices.empty() ? "none" : fmt::format("{}", fmt::join(devices, ", "))));
    }
    add(options.device, options.port);
  } else {
    for (const RunMeasurement& run : runs) {
      if (run.rdma_link && !run.device.empty()) add(run.device, options.port ? options.port : run.port);
    }
    if (keys.empty()) {
      for (const std::string& device : devices) add(device, options.port);
    }
  }
  if (keys.empty() && !devices.empty() && options.port) {
    return NotFound(fmt::format("no RDMA device under {} has a port {} (have: {})", where, *options.port,
                                fmt::join(devices, ", ")));
  }
  return keys;
}

// A test buffer whose pages lie mostly on another NUMA node than the NIC's:
// every byte crosses between the sockets, which costs a third or more of a
// NIC's rate on a two-socket host. Said in the verdict: as what binds a run
// that is not link-bound, as a note on one that is.
void NameFarBuffer(const topology::SysfsReader& sysfs, const std::string& device,
                   const RunMeasurement& run, Verdict& verdict) {
  if (run.buffer_pages.empty()) return;
  const auto nic = sysfs.ReadInteger(fmt::format("/sys/class/infiniband/{}/device/numa_node", device));
  if (!nic.known() || *nic.value < 0) return;
  const int nic_node = static_cast<int>(*nic.value);
  uint64_t total = 0;
  auto far = run.buffer_pages.end();
  for (auto it = run.buffer_pages.begin(); it != run.buffer_pages.end(); ++it) {
    total += it->second;
    if (it->first != nic_node && (far == run.buffer_pages.end() || it->second > far->second)) far = it;
  }
  const auto near = run.buffer_pages.find(nic_node);
  const uint64_t near_pages = near == run.buffer_pages.end() ? 0 : near->second;
  if (far == run.buffer_pages.end() || 2 * near_pages >= total) return;
  const std::string where = fmt::format(
      "the test buffer is on NUMA node {} ({} of its {} pages), {} on node {}: every byte crosses "
      "between the sockets; rerun with --numa_node {}",
      far->first, far->second, total, device, nic_node, nic_node);
  verdict.line += verdict.link_bound ? "; also: " + where : "; bound by a far buffer: " + where;
}

Verdict JudgeOne(const topology::SysfsReader& sysfs, const DoctorOptions& options, const RunMeasurement& run) {
  if (!run.rdma_link) return NoRdmaLinkVerdict(run);
  const std::string device = options.device.empty() ? run.device : options.device;
  const int port = options.port.value_or(run.port);
  if (device.empty()) {
    Verdict verdict;
    verdict.line = fmt::format("{}: the run names no RDMA device; pass -d DEV", run.label);
    return verdict;
  }
  if (!sysfs.Exists(fmt::format("/sys/class/infiniband/{}/ports/{}", device, port))) {
    Verdict verdict;
    verdict.line = fmt::format("{}: {} port {} is not under {}; run the doctor on the host that ran it", run.label,
                               device, port, (sysfs.root() / "sys/class/infiniband").string());
    return verdict;
  }
  CeilingOptions ceiling_options;
  ceiling_options.run_mtu_bytes = run.mtu_bytes;
  ceiling_options.unreliable_datagram = run.unreliable_datagram;
  Verdict verdict = JudgeRun(run, ComputeCeiling(ReadPath(sysfs, device, port), ceiling_options));
  NameFarBuffer(sysfs, device, run, verdict);
  return verdict;
}

// The verdict of a host with no RDMA port and no run that needs none.
Verdict NoRdmaPortVerdict(const topology::SysfsReader& sysfs) {
  Verdict verdict;
  verdict.line = fmt::format(
      "no RDMA port under {}: nothing here runs over verbs; tcp and shm do (xfer write_bw --loopback "
      "--transport tcp), and xfer doctor --run FILE judges their runs",
      (sysfs.root() / "sys/class/infiniband").string());
  return verdict;
}

}  // namespace

Result<DoctorReport> Diagnose(const DoctorOptions& options) {
  // A root that is not there says so, rather than that it has no RDMA port.
  XFER_RETURN_IF_ERROR(CheckInputDirectory("--sysfs-root", options.sysfs_root));
  std::vector<RunMeasurement> runs;
  std::optional<RunOutcome> outcome;
  if (!options.run_path.empty()) {
    outcome.emplace();
    auto loaded = LoadRunFile(options.run_path, &*outcome);
    if (!loaded.ok()) return loaded.status();
    runs = std::move(*loaded);
  }
  const topology::SysfsReader sysfs(options.sysfs_root);
  auto keys = PickPorts(sysfs, options, runs);
  if (!keys.ok()) return keys.status();
  DoctorReport report;
  report.sysfs_root = options.sysfs_root;
  report.run_outcome = std::move(outcome);
  for (const PortKey& key : *keys) {
    PortDiagnosis diagnosis;
    diagnosis.path = ReadPath(sysfs, key.device, key.port);
    diagnosis.ceiling = ComputeCeiling(diagnosis.path);
    report.ports.push_back(std::move(diagnosis));
  }
  report.inventory = topology::ReadHostInventory(sysfs);
  report.gpus = topology::ReadGpuTopology(sysfs, report.inventory);
  topology::NicMap nic_map = topology::ReadNicMap(sysfs);
  if (!options.nic_map_path.empty()) {
    auto text = ReadInputFile(options.nic_map_path, kMaxNicMapBytes);
    if (!text.ok()) return text.status().WithContext("--nic-map");
    XFER_RETURN_IF_ERROR(
        topology::ApplyNicMapOverrides(*text, "--nic-map " + options.nic_map_path, nic_map));
  }
  report.nic_map = DiagnoseNicMap(nic_map);
  report.host = ReadHostTuning(sysfs);
  report.host_warnings = HostWarnings(report.host);
  for (const RunMeasurement& run : runs) report.verdicts.push_back(JudgeOne(sysfs, options, run));
  if (report.ports.empty() && runs.empty()) report.verdicts.push_back(NoRdmaPortVerdict(sysfs));
  return report;
}

}  // namespace xfer::doctor
