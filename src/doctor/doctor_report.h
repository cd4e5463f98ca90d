// What `xfer doctor` found, and its text (for people) and JSON (for
// machines) forms.
#ifndef XFER_DOCTOR_DOCTOR_REPORT_H_
#define XFER_DOCTOR_DOCTOR_REPORT_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "doctor/ceiling.h"
#include "doctor/host_tuning.h"
#include "doctor/nic_map_diagnosis.h"
#include "doctor/path_reading.h"
#include "doctor/run_file.h"
#include "doctor/verdict.h"
#include "topology/gpu_topology.h"
#include "topology/host_inventory.h"
#include "topology/sysfs_reader.h"
#include "xfer/status.h"

namespace xfer::doctor {

struct DoctorOptions {
  std::string device;          // -d: only this device; "" = all (or the run's)
  std::optional<int> port;     // -i: only this port; nullopt = all (or the run's)
  std::string run_path;        // --run: judge this run; "" = none
  std::string sysfs_root = "/";
  // --nic-map: corrections to which RDMA devices serve which GPU or node
  // (topology/nic_map.h's override file); "" = none.
  std::string nic_map_path;
};

struct PortDiagnosis {
  PathReading path;
  Ceiling ceiling;  // RC traffic at the active MTU
};

struct DoctorReport {
  std::string sysfs_root;
  std::vector<PortDiagnosis> ports;  // empty on a host without an RDMA port
  topology::HostInventory inventory;
  std::vector<topology::GpuTopology> gpus;  // each GPU against the RDMA NICs
  NicMapDiagnosis nic_map;                   // which RDMA devices serve which memory
  HostTuning host;
  std::vector<std::string> host_warnings;
  std::vector<Verdict> verdicts;
  // With --run: how that run ended. An incomplete one is said above the
  // verdicts, which then judge only what finished.
  std::optional<RunOutcome> run_outcome;
};

// Reads everything `options` asks about and judges the run, if any. A host
// without an RDMA port is a finding, not an error: the report holds its
// host section and the verdict "no RDMA port under ...". Errors:
// kInvalidArgument for a bad --run file (naming it), a bad --nic-map file,
// or a --sysfs-root that is no folder; kNotFound when -d names no device under the root, or -i a
// port none of its RDMA devices has (the message says where it looked).
Result<DoctorReport> Diagnose(const DoctorOptions& options);

// Ends with a newline.
std::string DoctorText(const DoctorReport& report);
nlohmann::json DoctorJson(const DoctorReport& report);

}  // namespace xfer::doctor

#endif  // XFER_DOCTOR_DOCTOR_REPORT_H_
