// Measurements read from a run's JSON: perftest tests' --json
// (report/json_report.h) or `xfer matrix --json` (report/matrix/matrix_json.h).
#ifndef XFER_DOCTOR_RUN_FILE_H_
#define XFER_DOCTOR_RUN_FILE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "doctor/units.h"
#include "xfer/status.h"

namespace xfer::doctor {

struct RunMeasurement {
  std::string label;      // "Send_BW_Test at 65536 B", "matrix H2H write verbs 64M"
  std::string transport;  // "verbs", "shm", "tcp"; "" when the file does not say
  // Whether the bytes crossed an RDMA link, so that a port's ceiling
  // applies: the file's "data_mover" is "nic" (xfer::DataMoverName); in
  // files from before that key, a perftest run that names its RDMA
  // "Device".
  bool rdma_link = false;
  std::string device;     // "" when the file names none
  int port = 1;           // test_info.ib_port or the matrix's verbs port; 1 when absent
  std::optional<int> mtu_bytes;
  bool unreliable_datagram = false;
  int qps = 1;
  double bytes_per_s = 0;
  RateUnit unit = RateUnit::kGBps;  // the unit the run reported in
  // The test buffer's pages per NUMA node (test_info.numa.buffer_pages of
  // xfer's --json); empty when the file does not say.
  std::map<int, uint64_t> buffer_pages;
};

// How the run that wrote the file ended: "complete", "failed",
// "interrupted" or "running" (a run still going, or killed), with its error;
// both empty in files from before the field.
struct RunOutcome {
  std::string outcome;
  std::string error;
  bool complete() const { return outcome.empty() || outcome == "complete"; }
};

// perftest files: one measurement, the row with the largest MsgSize (the
// bandwidth-bound end of a sweep). Matrix files: per (direction, transport),
// the ok cell with the largest block size.
// Errors (kInvalidArgument, the message naming `path` and the problem): the
// file cannot be read, is not JSON, is JSON of neither format (a cluster
// matrix file is named as such: not judged yet), or holds no bandwidth
// result (a latency run). `outcome`, when given, receives how the run ended.
Result<std::vector<RunMeasurement>> LoadRunFile(const std::string& path,
                                                RunOutcome* outcome = nullptr);

}  // namespace xfer::doctor

#endif  // XFER_DOCTOR_RUN_FILE_H_
