// What ranks tell each other through the launcher: each rank's hello in the
// address exchange, and each rank's report after a group of cells. Encoded
// as JSON text; every field is checked on decoding (type, range, length),
// since another rank's bytes are as untrusted as any peer's.
#ifndef XFER_BENCH_CLUSTER_RANK_MESSAGES_H_
#define XFER_BENCH_CLUSTER_RANK_MESSAGES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/cluster/cluster_run.h"
#include "xfer/status.h"

namespace xfer::cluster {

// The longest message a rank accepts from another: a report of 100000
// samples fits, with room.
inline constexpr size_t kMaxRankMessageBytes = size_t{8} << 20;

std::string EncodeHello(const RankInfo& rank);
// Errors: kProtocolError naming the field.
Result<RankInfo> DecodeHello(std::string_view text);

// A rank's part of one group: nothing when it was the source of no flow.
struct FlowReport {
  uint32_t rank = 0;
  uint64_t group = 0;     // which group it answers; checked by rank 0
  bool measured = false;  // whether it was the source of a flow
  uint32_t target = 0;    // that flow's target (measured only)
  matrix::CellStatus status = matrix::CellStatus::kNotRun;
  std::string reason;
  std::string path_transport;
  uint32_t path_streams = 0;
  uint32_t requests = 0;
  std::vector<double> warmup_seconds;
  std::vector<double> sample_seconds;
  uint64_t registered_bytes = 0;
  uint64_t max_rss_bytes = 0;
};

std::string EncodeReport(const FlowReport& report);
// `max_samples` bounds each list of seconds. Errors: kProtocolError.
Result<FlowReport> DecodeReport(std::string_view text, size_t max_samples);

// A rank's whole part of one group: one report per flow it was the source
// of (several at once in fan-out), or one unmeasured report when none.
std::string EncodeReports(const std::vector<FlowReport>& reports);
// `max_flows` bounds the list (a rank is the source of at most ranks - 1
// flows of a step). Errors: kProtocolError naming the field.
Result<std::vector<FlowReport>> DecodeReports(std::string_view text, size_t max_samples,
                                              size_t max_flows);

}  // namespace xfer::cluster

#endif  // XFER_BENCH_CLUSTER_RANK_MESSAGES_H_
