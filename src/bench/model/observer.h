// How a benchmark run reports progress: the runners call a BenchObserver,
// the CLI implements it with the table and JSON writers. Keeps bench free
// of any output format.
#ifndef XFER_BENCH_MODEL_OBSERVER_H_
#define XFER_BENCH_MODEL_OBSERVER_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/model/bench_params.h"
#include "bench/model/ceiling.h"
#include "bench/model/rail_timeline.h"
#include "bench/model/results.h"
#include "xfer/data_mover.h"
#include "bench/model/registration_timing.h"

namespace xfer::bench {

// One queue pair's half of perftest's key message (struct pingpong_dest):
// what a side tells its peer, printed as the "local/remote address" lines.
struct QpAddress {
  uint16_t lid = 0;
  uint32_t out_reads = 0;
  uint32_t qpn = 0;
  uint32_t psn = 0;
  uint32_t rkey = 0;
  uint64_t vaddr = 0;
  std::optional<std::array<uint8_t, 16>> gid;  // none when no GRH is used
};

// The verbs block of perftest's header (ctx_print_test_info).
struct VerbsRunInfo {
  std::string device;                 // "mlx5_0"
  int ib_port = 1;                    // its port (-i)
  std::string transport_type = "IB";  // "IB" or "IW"
  std::string connection = "RC";      // "RC", "UC", "UD"
  uint32_t mtu_bytes = 0;             // the MTU both sides settled on
  std::string link_type;              // "Ethernet" or "IB"
  int gid_index = -1;                 // -1: no GRH, no "GID index" line
  // READ and ATOMIC print "Outstand reads", the others "Max inline data".
  bool shows_out_reads = false;
  uint32_t max_inline = 0;
  uint32_t out_reads = 0;
  // " PCIe relax order" / " ibv_wr* API" lines: memory registered with
  // IBV_ACCESS_RELAXED_ORDERING; work requests posted with ibv_wr_*()
  // rather than ibv_post_send().
  bool pcie_relaxed_ordering = false;
  bool wr_api = false;
  std::vector<QpAddress> local;   // one per QP
  std::vector<QpAddress> remote;  // one per QP
};

// What the run settled on once the peers are connected: the header of the
// table.
struct RunInfo {
  std::string transport;  // the transport actually carrying the run
  // What moves the bytes on it (xfer/data_mover.h): "nic" for an RDMA
  // link, which the doctor judges against the port's ceiling.
  DataMover data_mover = DataMover::kKernel;
  // Whether this side's buffers were staged (PeerInfo::staged).
  bool staged = false;
  // write_lat --notify: each exchange ends at the peer's notification.
  bool notify = false;
  // write_bw/read_bw --prepared: posted through prepared transfer lists.
  bool prepared = false;
  uint32_t qps = 1;
  uint32_t tx_depth = 0;
  uint32_t cq_mod = 0;
  uint32_t post_list = 1;
  uint32_t rx_depth = 0;
  bool peak_disabled = false;
  bool results_from_peer = false;  // this side prints numbers the peer measured
  std::optional<VerbsRunInfo> verbs;  // set by RDMA verbs runs only
  // The path's ceiling by message size, when the run records it
  // (BenchParams::RecordsCeiling); empty otherwise and for latency tests.
  std::map<uint64_t, Ceiling> ceilings;
  // Measured before the first size on xfer's wire (ProbeRegistration).
  std::optional<RegistrationTiming> registration;
  // The connection's rails (PeerInfo::rails), their counters zero; one
  // rail when it is not striped.
  std::vector<RailInfo> rails;
  // Where this process runs (BenchParams::numa_node_run, numa_placement):
  // the NUMA node, -1 when unknown, and how it was placed.
  int numa_node = -1;
  std::string numa_placement;
  // The test buffer's pages per NUMA node (bench/page_nodes.h), host
  // memory on xfer's wire; empty when not known.
  std::map<int, uint64_t> buffer_pages;
  uint64_t buffer_pages_unplaced = 0;
};

// Called from the thread that runs the benchmark, in this order:
// OnNotice* → OnStart → ([OnPeerBandwidth] OnBandwidth | OnLatency | OnLatencyDuration)*
// per size.
class BenchObserver {
 public:
  virtual ~BenchObserver() = default;
  // A warning or note perftest would print, one line without newline.
  virtual void OnNotice(const std::string& line) = 0;
  virtual void OnWaitingForClient() = 0;
  virtual void OnStart(const RunInfo& info) = 0;
  virtual void OnBandwidth(const BwResult& result) = 0;
  // A row the peer measured and sent over the wire (perftest's report
  // exchange), before the row this side prints from it: with -b the peer's
  // half of the printed sum, on a unidirectional server the client's row.
  // Default: ignored.
  virtual void OnPeerBandwidth(const BwResult& /*result*/) {}
  virtual void OnLatency(const LatResult& result) = 0;
  virtual void OnLatencyDuration(const LatDurationResult& result) = 0;
  // After the last size, on a connection over several rails: what each
  // carried (PeerInfo::rails), this side's posts. Default: ignored.
  virtual void OnRails(const std::vector<RailInfo>& /*rails*/) {}
  // After the last size, with --timeline on a connection over several
  // rails: what each carried, interval by interval. Default: ignored.
  virtual void OnRailTimeline(const RailTimeline& /*timeline*/) {}
};

// Reports nothing: for a run whose other half prints (the --loopback child).
class SilentObserver final : public BenchObserver {
 public:
  void OnNotice(const std::string&) override {}
  void OnWaitingForClient() override {}
  void OnStart(const RunInfo&) override {}
  void OnBandwidth(const BwResult&) override {}
  void OnLatency(const LatResult&) override {}
  void OnLatencyDuration(const LatDurationResult&) override {}
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_MODEL_OBSERVER_H_
