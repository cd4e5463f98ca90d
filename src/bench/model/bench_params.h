// What one benchmark run is asked to do: the immutable product of the CLI,
// the only input of the bench runners. Defaults follow perftest 4.5
// (../shared/reference/perftest.md §2.3 and §3).
#ifndef XFER_BENCH_MODEL_BENCH_PARAMS_H_
#define XFER_BENCH_MODEL_BENCH_PARAMS_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "xfer/engine.h"

namespace xfer::bench {

// kAtomic: perftest's atomic tests (8-byte FETCH_AND_ADD or CMP_AND_SWAP);
// RDMA verbs only.
enum class Verb { kWrite, kRead, kSend, kAtomic };
enum class Kind { kBandwidth, kLatency };
enum class Role { kServer, kClient, kLoopback };

// The out-of-band protocol, and with it the stack that runs a test:
// kPerftest is perftest's own wire protocol and verbs tests (src/perftest),
// so that a stock ib_* tool can be the peer; it runs on RDMA verbs only.
// kXfer is xfer's protocol over libxfer's engine (src/bench), on any of the
// engine's transports, verbs included.
enum class Wire { kPerftest, kXfer };

// perftest's MiB/s (2^20 bytes/s) or --report_gbits Gb/s (10^9 bit/s).
enum class BwUnits { kMiBps, kGbps };

// -c: the verbs queue pair type. The engine's transports are always
// reliable connected.
enum class Connection { kRC, kUC, kUD };

// -A: the atomic operation of atomic_bw / atomic_lat.
enum class AtomicType { kFetchAndAdd, kCompareAndSwap };

// What only the RDMA verbs path reads (perftest's verbs flags). Every field
// left at its default means "perftest's default".
struct VerbsParams {
  std::string device;              // -d: "" = the first device
  uint8_t ib_port = 1;             // -i
  std::optional<int> gid_index;    // -x: none = automatic (RoCE) / no GRH (IB)
  std::optional<uint32_t> mtu;     // -m, bytes: none = min of both ports' active MTU
  Connection connection = Connection::kRC;  // -c
  std::optional<uint32_t> inline_size;      // -I: none = perftest's default
  std::optional<uint32_t> out_reads;        // -o: none or 0 = the device maximum
  uint8_t sl = 0;                  // -S
  uint8_t qp_timeout = 14;         // -u: 4.096 us * 2^n
  AtomicType atomic_type = AtomicType::kFetchAndAdd;  // -A
  bool prefer_ipv6 = false;        // --ipv6
  uint8_t traffic_class = 0;       // --tclass
  uint16_t pkey_index = 0;         // --pkey_index
  // Every verbs flag as typed ("-d mlx5_0"), for the notes a non-verbs
  // transport prints ("ignored").
  std::vector<std::string> typed;
};

struct BenchParams {
  Verb verb = Verb::kWrite;
  Kind kind = Kind::kBandwidth;
  Role role = Role::kServer;
  std::string server_host;      // client: the positional <host> argument
  // -p: the out-of-band port. kLoopback: the port the forked server
  // listens on, on 127.0.0.1; 0 = a free one.
  uint16_t port = 18515;
  // --transport: the transport by name; "" = verbs when a verbs flag was
  // typed, the test is atomic or this host has an RDMA device, else the
  // engine's choice (cli/flags.h).
  std::string transport;
  // --wire, or what the CLI's rule made of --transport and --secret-file;
  // nullopt (transport "" too) = decided when the run starts: kPerftest on
  // a host with an RDMA device, else kXfer (launch/run_benchmark.h).
  std::optional<Wire> wire;
  // --device_path: how this side's engine moves its local buffers
  // (xfer::DevicePath); each side sets its own.
  DevicePath device_path = DevicePath::kAuto;
  // The engine's per-transport settings (xfer/engine.h,
  // EngineOptions::transport_options) that the typed flags set, derived by
  // the CLI from the transports' own option tables: "-d rxe0" is verbs'
  // {"device": "rxe0"}. Used on xfer's wire.
  std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>>
      transport_options;

  bool all_sizes = false;       // -a: sizes 2 .. 2^23
  uint64_t size = 65536;        // -s (BW default 65536, LAT default 2)
  bool size_given = false;      // -s was typed (a UD default above the MTU
                                // becomes the MTU, as in perftest)
  uint64_t iterations = 5000;   // -n (per QP; write BW 5000, else 1000)
  double duration_s = 0;        // -D; 0 = iteration mode
  double margin_s = 0;          // -f; default duration/4
  uint32_t qps = 1;             // -q: engine streams
  uint32_t rails = 0;           // --rails N: ConnectOptions::rails (0 = auto)
  std::vector<std::string> rail_ends;  // --rails a,b: ConnectOptions::rail_ends
  uint32_t timeline_ms = 0;     // --timeline: each rail's bytes per interval; 0 = off
  bool report_histogram = false;  // -H: a latency size's kept samples, sorted, before its row
  bool report_unsorted = false;   // -U: all its samples, in the order taken
  bool report_cycles = false;     // -C: latency rows and lists in counter cycles
  uint32_t tx_depth = 128;      // -t: outstanding requests per stream (LAT: 1)
  uint32_t cq_mod = 100;        // -Q: requests per completion batch
  bool cq_mod_given = false;    // -Q was on the command line (the coupling
                                // rules of §2.3 treat it differently)
  uint32_t post_list = 1;       // -l: entries per submitted batch
  uint32_t rx_depth = 512;      // -r: posted receives (send tests)
  bool bidirectional = false;   // -b: both sides post (write_bw, read_bw)
  bool no_peak = false;         // -N (or forced by the rules of §2.3)
  bool cpu_freq_warning_off = false;  // -F
  BwUnits units = BwUnits::kMiBps;    // --report_gbits
  bool use_hugepages = false;   // --use_hugepages
  // --perform_warm_up: the verbs path's one-sided bandwidth tests post
  // tx_depth signalled WRs per QP before timing (perftest's warm-up); the
  // engine's transports always make an untimed first pass (bench/warm_up.h).
  bool perform_warm_up = false;
  // --use_cuda=<gpu> / --use_cuda_bus_id=<bdf>: the test buffer is CUDA
  // device memory on that GPU (write_bw and read_bw; each side chooses its
  // own, as in perftest). At most one of them is set.
  std::optional<int> cuda_device;
  std::string cuda_bus_id;
  // --use_cuda_dmabuf: register the device buffer with the NIC through a
  // dma-buf (perftest's verbs tests); otherwise by its address, which
  // needs nvidia-peermem.
  bool cuda_dmabuf = false;
  // --notify (write_lat, xfer's wire): each WRITE carries a notification
  // and each side waits for the peer's notification instead of polling
  // the last byte: the latency is submit to the target seeing it.
  bool notify = false;
  // --prepared (write_bw, read_bw; xfer's wire): post through prepared
  // transfer lists (Engine::PrepareTransfers) instead of Submit.
  bool prepared = false;
  std::string json_path;        // --json FILE
  // The words typed, argv[0] first: recorded in the JSON document.
  std::vector<std::string> command_line;
  // --efficiency: the bandwidth table gains the ceiling of the path and
  // the measured fraction of it (bench/run_ceilings.h).
  bool efficiency = false;
  std::chrono::milliseconds timeout{10000};  // --timeout: every wait on the peer
  // --secret-file: the engine's EngineOptions::secret; "" = none. Never
  // sent to the peer: each side reads its own file.
  std::string secret;
  // --accept_timeout: how long a server waits for its client to show up.
  std::chrono::milliseconds accept_timeout{600000};

  VerbsParams verbs;

  // Flags accepted for perftest compatibility that the chosen transport
  // ignores, already rendered as one-line notes ("-d mlx5_0: no verbs device
  // on transport shm; ignored").
  std::vector<std::string> notes;

  // NUMA placement (launch/numa_placement.h): --pin_cores (empty: not
  // given), --numa_node (-1: not given), --disable_numa.
  std::vector<int> pin_cores;
  int numa_node = -1;
  bool disable_numa = false;
  // What placing the process did, set when it is placed: the node it then
  // runs on (-1: unknown) and how it got there, for the header and --json.
  int numa_node_run = -1;
  std::string numa_placement;

  // Message sizes this run covers, ascending.
  std::vector<uint64_t> Sizes() const;

  // Whether the run measures its path's ceiling: for the efficiency column
  // or for the JSON document, which always records it.
  bool RecordsCeiling() const { return efficiency || !json_path.empty(); }
};

inline std::vector<uint64_t> BenchParams::Sizes() const {
  if (!all_sizes) return {size};
  std::vector<uint64_t> sizes;
  for (int exp = 1; exp <= 23; ++exp) sizes.push_back(uint64_t{1} << exp);
  return sizes;
}

}  // namespace xfer::bench

#endif  // XFER_BENCH_MODEL_BENCH_PARAMS_H_
