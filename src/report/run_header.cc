#include "report/run_header.h"


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
  info.data_mover = run.data_mover;
  info.staged = run.staged;
  info.notify = run.notify;
  info.prepared = run.prepared;
  info.registration = run.registration;
  info.qps = run.qps;
  info.tx_depth = run.tx_depth;
  info.cq_mod = run.cq_mod;
  info.post_list = run.post_list;
  info.rx_depth = run.rx_depth;
  info.units = params.units;
  info.bidirectional = params.bidirectional;
  info.duration_s = params.duration_s;
  info.report_cycles = params.report_cycles;
  info.atomic_type = params.verbs.atomic_type;
  info.verbs = run.verbs;
  info.rails = run.rails;
  info.numa_node = run.numa_node;
  info.numa_placement = run.numa_placement;
  info.buffer_pages = run.buffer_pages;
  info.buffer_pages_unplaced = run.buffer_pages_unplaced;
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
    case Verb::kAtomic:
      return "Atomic";
  }
  return "Unknown";
}

std::string_view AtomicTypeName(bench::AtomicType type) {
  switch (type) {
    case bench::AtomicType::kCompareAndSwap:
      return "CMP_AND_SWAP";
    case bench::AtomicType::kFetchAndAdd:
      return "FETCH_AND_ADD";
  }
  return "Unknown";
}

std::string TestTitle(const TestInfo& info) {
  std::string title(VerbName(info.verb));
  title += ' ';
  if (info.verb == Verb::kAtomic) {
    title += AtomicTypeName(info.atomic_type);
    title += ' ';
  }
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

bool AddressShowsOutReads(Verb verb) { return verb == Verb::kRead; }

bool AddressShowsRemoteKey(Verb verb) {
  return verb == Verb::kRead || verb == Verb::kWrite;
}

bool ShowsTxDepth(const TestInfo& info) { return info.role != Role::kServer; }

bool ShowsRxDepth(const TestInfo& info) {
  return info.verb == Verb::kSend && info.role != Role::kClient;
}

}  // namespace xfer::report
