// The --json FILE document. Layout (keys follow perftest's --out_json names
// where perftest has one; units are never implied):
//
//   {
//     "test_info": {
//       "test": "RDMA_Write_BW_Test", "transport": "shm",
//       "data_mover": "cpu copy" (xfer::DataMoverName: "nic" on RDMA),
//       "staged": false (true: this side's buffers bounced through its
//       staging memory, --device_path staged),
//       "role": "client",
//       "Number_of_qps": 1, "TX_depth": 128,
//       "CQ_Moderation": 100, "Post_list": 1, "mode": "iterations",
//       "duration_s": 0, "units": { "<result key>": "<unit>", ... }
//     },
//     "results": [ { one object per message size, in sweep order } ]
//   }
//
// BW result keys: MsgSize [bytes], n_iterations, BW_peak and BW_average [the
// table's unit, named in units: "MiB/s (2^20 bytes/s)" or "Gb/s (10^9
// bit/s)"], MsgRate [Mpps], BW_peak_bytes_per_sec and
// BW_average_bytes_per_sec [bytes/s]; the peak is null when it was not
// measured (-N, or a run too short for perftest's peak; the terminal keeps
// perftest's 0.00). A run that measured nothing has "results": [] and its
// "outcome" says why. Latency: t_min, t_max, t_typical,
// t_avg, t_stdev, percentile_99, percentile_99.9 [us], t_stdev being the
// population standard deviation in floating point (the table's too), and,
// on the side that took the samples, "distribution": the kept samples'
// count, the dropped ones', min, max, the percentile ladder (25 ...
// 99.999, nearest rank) [us] and log-linear buckets [[from_ns, to_ns,
// count]] (latency_distribution.h). Every value is the full double. Duration latency:
// t_avg [us], tps_average [1/s]. TX_depth appears only where the header
// prints it, CQ_Moderation only for BW, RX_depth only for the SEND receiver.
//
// RDMA verbs runs (TestInfo::verbs set) add perftest's verbs keys to
// test_info, with the header's values: "Connection_type" (the QP type: RC,
// UC, UD), "Dual_port", "Device", "ib_port" (xfer's: the port, -i),
// "Transport_type", "Using_SRQ", "PCIe_relax_order", "ibv_wr_API", "Mtu"
// [bytes], "Link_type", "GID_index" (only when a GID is used),
// "Max_inline_data" [bytes] or "Outstand_reads", "rdma_cm_QPs",
// "Data_ex_method"; and "local_address" / "remote_address", one object per
// QP: {"LID", "QPN", "PSN", "OUT" (read), "RKey" and "VAddr" (write, read),
// "GID" (text, "00:00:...:10:00:00:05", when a GID is used)}, all numbers
// except GID.
//
// "peer_results" (BW only, when the peer sent rows): what the peer measured,
// same keys as "results".
//
// Bandwidth rows of a run that recorded its path's ceiling add "ceiling"
// and "efficiency" (BwJsonReport). The CLI adds "command_line" and
// "fingerprint" at the top level (RunProvenanceJson), and "outcome" and
// "error" (RunOutcomeJson), the names xfer matrix uses: a run that failed
// or was interrupted keeps the sizes it finished, and says so.
//
// Unlike perftest, which rewrites the file per report line so that only the
// last size of an -a sweep survives, "results" holds every size.
#ifndef XFER_REPORT_JSON_REPORT_H_
#define XFER_REPORT_JSON_REPORT_H_

#include <nlohmann/json.hpp>
#include <map>
#include <span>
#include <string>

#include "bench/model/ceiling.h"
#include "bench/matrix/host_fingerprint.h"
#include "bench/model/results.h"
#include "report/run_header.h"
#include "xfer/status.h"

namespace xfer::report {

// The "test_info" object for info; units describes BW results when
// info.kind is kBandwidth, latency results otherwise.
nlohmann::json JsonTestInfo(const TestInfo& info);

// Whole documents. The spans are read during the call only.
// peer_results, when not empty, become "peer_results": the rows the peer
// measured and sent (perftest's report exchange), in the same keys. With -b
// "results" holds the printed local + peer sums. With `ceilings` (by
// size, bench/run_ceilings.h) each "results" row gains
// "ceiling": {"bytes_per_sec": number or null, "source": text} and
// "efficiency": BW_average_bytes_per_sec / ceiling, a fraction, or null.
nlohmann::json BwJsonReport(const TestInfo& info,
                            std::span<const bench::BwResult> results,
                            std::span<const bench::BwResult> peer_results = {},
                            const std::map<uint64_t, bench::Ceiling>& ceilings = {});
nlohmann::json LatJsonReport(const TestInfo& info,
                             std::span<const bench::LatResult> results);
nlohmann::json LatDurationJsonReport(
    const TestInfo& info, std::span<const bench::LatDurationResult> results);

// The keys that say where a document came from: "command_line" (the words
// typed, argv[0] first) and "fingerprint" (the host, as xfer matrix records
// it).
nlohmann::json RunProvenanceJson(std::span<const std::string> command_line,
                                 const matrix::HostFingerprint& host);

// How the run ended: {"outcome": "complete", "error": null} for an OK
// `status`; "interrupted" when `signal` (the stop signal's number, 0 for
// none) ended it; else "failed"; "error" then holds status.ToString().
nlohmann::json RunOutcomeJson(const Status& status, int signal);

// Whether WriteJsonFile(path, ...) could write (common/output_file.h's
// PrepareOutput), so that a run can refuse an unwritable --json before it
// measures anything. Writes nothing. Errors: kIoError naming the path and
// the reason; kInvalidArgument for a directory.
Status CheckJsonWritable(const std::string& path);

// Writes document (2-space indented, newline-terminated) to path as
// common/output_file.h says: a regular file (or a link to one) atomically,
// so a reader sees the old file or the complete new one; a stream (a FIFO,
// /dev/stdout, a device) written through. Invalid UTF-8 in strings is
// replaced, never thrown. Errors: as WriteOutputFile; no temporary file is
// left.
Status WriteJsonFile(const std::string& path, const nlohmann::json& document);

}  // namespace xfer::report

#endif  // XFER_REPORT_JSON_REPORT_H_
