// The description of a run that heads every report (perftest's
// ctx_print_test_info / the "test_info" JSON object): what was measured,
// over which transport, with the effective (post-rule) settings.
#ifndef XFER_REPORT_RUN_HEADER_H_
#define XFER_REPORT_RUN_HEADER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "bench/model/bench_params.h"
#include "bench/model/observer.h"
#include "xfer/data_mover.h"

namespace xfer::report {

// Plain value type; every field is printed as is.
struct TestInfo {
  bench::Verb verb = bench::Verb::kWrite;
  bench::Kind kind = bench::Kind::kBandwidth;
  bench::Role role = bench::Role::kClient;
  std::string transport;  // the transport actually used ("shm"); required
  DataMover data_mover = DataMover::kKernel;  // what moved the bytes on it
  bool staged = false;  // the local buffers bounced through staging memory
  bool notify = false;  // write_lat --notify: timed to the peer's notification
  bool prepared = false;  // --prepared: posted through prepared transfer lists
  bool report_cycles = false;  // -C: latency figures in counter cycles, not us
  int numa_node = -1;          // where the process runs; -1: unknown (not printed)
  std::string numa_placement;  // how it got there (--json)
  std::map<int, uint64_t> buffer_pages;  // the test buffer's pages per node (--json)
  uint64_t buffer_pages_unplaced = 0;
  std::optional<bench::RegistrationTiming> registration;  // RunInfo's
  uint32_t qps = 1;
  uint32_t tx_depth = 0;  // effective (EffectiveSettings::tx_depth)
  uint32_t cq_mod = 0;    // effective (EffectiveSettings::cq_mod)
  uint32_t post_list = 1;
  uint32_t rx_depth = 0;  // effective (EffectiveSettings::rx_depth)
  bool bidirectional = false;  // -b
  bench::BwUnits units = bench::BwUnits::kMiBps;
  double duration_s = 0;  // -D; 0 = iteration mode
  // -A; only atomic tests print it (in the title).
  bench::AtomicType atomic_type = bench::AtomicType::kFetchAndAdd;
  // Set for RDMA verbs runs: the header is then perftest's verbs block
  // (perftest_table.h: VerbsTestHeader) instead of xfer's transport block,
  // and verbs->connection names the QP type (RC, UC, UD). Other transports
  // have no connection type to show.
  std::optional<bench::VerbsRunInfo> verbs;
  // The connection's rails; with more than one, the header lists them, and
  // once the run ends (ConsoleReporter::OnRails) they hold what each
  // carried, which the table's last line and the JSON show as shares.
  std::vector<RailInfo> rails;
};

// The header of a run: what the CLI asked for, with what the run settled on
// once connected (the transport the engine picked, the streams it granted,
// the depths after perftest's rules, and for verbs runs the device, QPs and
// connection type of run.verbs).
TestInfo MakeTestInfo(const bench::BenchParams& params, const bench::RunInfo& run);

// perftest's testsStr[verb]: "RDMA_Write", "RDMA_Read", "Send" or "Atomic".
std::string_view VerbName(bench::Verb verb);

// perftest's atomicTypesStr: "CMP_AND_SWAP" or "FETCH_AND_ADD".
std::string_view AtomicTypeName(bench::AtomicType type);

// The title perftest centres under the first dashed line, without its 20
// leading spaces: testsStr[verb], the atomic type for atomic tests, then
// "Bidirectional " / "Post List " / "BW " for BW or "Latency ", and "Test":
// "RDMA_Write BW Test", "Send Post List BW Test", "RDMA_Read Latency Test",
// "Atomic FETCH_AND_ADD BW Test".
std::string TestTitle(const TestInfo& info);

// Header values xfer's verbs path cannot vary, because it refuses the flags
// that would change them (-O, --use-srq, -R, -z): " Dual-port : OFF",
// " Using SRQ : OFF", " rdma_cm QPs : OFF", " Data ex. method : Ethernet".
inline constexpr std::string_view kVerbsDualPort = "OFF";
inline constexpr std::string_view kVerbsUsingSrq = "OFF";
inline constexpr std::string_view kVerbsRdmaCmQps = "OFF";
inline constexpr std::string_view kVerbsDataExchange = "Ethernet";

// True when perftest's QP address line carries " OUT %#04x": READ only.
bool AddressShowsOutReads(bench::Verb verb);

// True when it carries " RKey %#08x VAddr %#016llx": WRITE and READ (the
// fall-through of ctx_print_pingpong_data's switch; SEND and ATOMIC print
// neither).
bool AddressShowsRemoteKey(bench::Verb verb);

// True when perftest would print the "TX depth" line: the client side (or
// both sides in loopback); the server of a unidirectional test posts nothing.
bool ShowsTxDepth(const TestInfo& info);

// True when perftest would print the "RX depth" line: the receiving
// (server) side of a SEND test.
bool ShowsRxDepth(const TestInfo& info);

}  // namespace xfer::report

#endif  // XFER_REPORT_RUN_HEADER_H_
