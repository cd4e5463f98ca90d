#include "report/test_info.h"


namespace xfer::report {

using bench::Kind;
using bench::Role;
using bench::Verb;

TestInfo MakeTestInfo(const bench::BenchParams& params, const bench::RunInfo& run) {
  TestInfo info;
  info.verb = params.verb;
  info.kind = params.kind;
  info.role = params.role;
  info.transport = run.transport;
  info.qps = run.qps;
  info.tx_depth = run.tx_depth;
  info.cq_mod = run.cq_mod;
  info.post_list = run.post_list;
  info.rx_depth = run.rx_depth;
  info.units = params.units;
  info.bidirectional = params.bidirectional;
  info.duration_s = params.duration_s;
  return info;
}

std::string_view VerbName(Verb verb) {
  switch (verb) {
    case Verb::kWrite:
      return "RDMA_Write";
    case Verb::kRead:
      return "RDMA_Read";
    case Verb::kSend:
      return "Send";
  }
  return "Unknown";
}

std::string TestTitle(const TestInfo& info) {
  std::string title(VerbName(info.verb));
  title += ' ';
  if (info.kind == Kind::kBandwidth) {
    if (info.bidirectional) title += "Bidirectional ";
    if (info.post_list > 1) title += "Post List ";
    title += "BW ";
  } else {
    title += "Latency ";
  }
  title += "Test";
  return title;
}

bool ShowsTxDepth(const TestInfo& info) { return info.role != Role::kServer; }

bool ShowsRxDepth(const TestInfo& info) {
  return info.verb == Verb::kSend && info.role != Role::kClient;
}

}  // namespace xfer::report
