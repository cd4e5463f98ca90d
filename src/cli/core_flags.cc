// Rows for the perftest flags xfer implements and for xfer's own flags.
// Ranges follow perftest 6.06 (perftest_parameters.h: MIN_ITER 5,
// MAX_ITER 1e8, MAX_TX 15000, MAX_CQ_MOD 1024, MAX_RX 16384) except -q,
// which is bounded by the engine's 64 streams.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <string>

#include "cli/flag_table.h"
#include "cli/secret_file.h"
#include "cli/value_parse.h"
#include "topology/cpu_list.h"

namespace xfer::cli {
namespace {

using bench::BenchParams;

constexpr int64_t kMaxSize = UINT_MAX / 2;  // perftest's -s limit
constexpr double kMaxTimeoutSeconds = 1e6;

Status ApplySize(const FlagSpec& spec, std::string_view value,
                 ParseState& state) {
  Result<int64_t> size = ParseByteCount(value, 1, kMaxSize);
  if (!size.ok()) return size.status().WithContext(DisplayName(spec));
  // perftest: atomics are 8 bytes, and -s may only repeat that.
  if (state.test->verb == bench::Verb::kAtomic &&
      static_cast<uint64_t>(*size) != state.params.size) {
    return InvalidArgument(
        fmt::format("{}: Message size cannot be changed for Atomic tests",
                    DisplayName(spec)));
  }
  state.params.size = static_cast<uint64_t>(*size);
  return Status::Ok();
}

Status ApplyDuration(const FlagSpec& spec, std::string_view value,
                     ParseState& state) {
  Result<int64_t> seconds = ParseFlagInteger(spec, value, 1, INT32_MAX);
  if (!seconds.ok()) return seconds.status();
  state.params.duration_s = static_cast<double>(*seconds);
  return Status::Ok();
}

Status ApplyPinCores(const FlagSpec& spec, std::string_view value, ParseState& state) {
  auto cpus = topology::ParseCpuList(value);
  if (!cpus.ok()) return cpus.status().WithContext(DisplayName(spec));
  state.params.pin_cores = std::move(cpus.value());
  return Status::Ok();
}

Status ApplyNumaNode(const FlagSpec& spec, std::string_view value, ParseState& state) {
  Result<int64_t> node = ParseFlagInteger(spec, value, 0, topology::kMaxCpus - 1);
  if (!node.ok()) return node.status();
  state.params.numa_node = static_cast<int>(*node);
  return Status::Ok();
}

Status ApplyMargin(const FlagSpec& spec, std::string_view value,
                   ParseState& state) {
  Result<int64_t> seconds = ParseFlagInteger(spec, value, 0, INT32_MAX);
  if (!seconds.ok()) return seconds.status();
  state.params.margin_s = static_cast<double>(*seconds);
  return Status::Ok();
}

// perftest: "On RDMA verbs rx depth can be only 1".
Status ApplyRxDepth(const FlagSpec& spec, std::string_view value,
                    ParseState& state) {
  Result<int64_t> depth = ParseFlagInteger(spec, value, 1, 16384);
  if (!depth.ok()) return depth.status();
  if (state.test->verb != bench::Verb::kSend && *depth != 1) {
    return InvalidArgument(
        fmt::format("{}: {} posts no receives; its rx depth can only be 1",
                    DisplayName(spec), state.test->name));
  }
  state.params.rx_depth = static_cast<uint32_t>(*depth);
  return Status::Ok();
}

// send_bw -b is verbs-only; ResolveTransport refuses it elsewhere.
Status SetBidirectional(const FlagSpec&, std::string_view, ParseState& state) {
  state.params.bidirectional = true;
  return Status::Ok();
}

Status ApplyReportGbits(const FlagSpec& spec, std::string_view,
                        ParseState& state) {
  state.params.units = bench::BwUnits::kGbps;
  if (state.test->kind == bench::Kind::kLatency) {
    state.params.notes.push_back(fmt::format(
        "{}: latency tests report no bandwidth; ignored", DisplayName(spec)));
  }
  return Status::Ok();
}

Status ApplyJson(const FlagSpec& spec, std::string_view value,
                 ParseState& state) {
  if (value.empty()) {
    return InvalidArgument(DisplayName(spec) + ": empty file name");
  }
  state.params.json_path = std::string(value);
  return Status::Ok();
}

Status ApplySecretFile(const FlagSpec&, std::string_view value, ParseState& state) {
  auto secret = ReadSecretFile(std::string(value));
  if (!secret.ok()) return secret.status();
  state.params.secret = std::move(secret.value());
  state.secret_file = std::string(value);
  return Status::Ok();
}

Status ApplyCudaDevice(const FlagSpec& spec, std::string_view value, ParseState& state) {
  Result<int64_t> ordinal = ParseFlagInteger(spec, value, 0, 1023);
  if (!ordinal.ok()) return ordinal.status();
  state.params.cuda_device = static_cast<int>(*ordinal);
  return Status::Ok();
}

Status ApplyCudaBusId(const FlagSpec& spec, std::string_view value, ParseState& state) {
  if (value.empty()) return InvalidArgument(DisplayName(spec) + ": empty PCIe address");
  state.params.cuda_bus_id = std::string(value);
  return Status::Ok();
}

Status ApplyTransport(const FlagSpec& spec, std::string_view value,
                      ParseState& state) {
  const auto& known = state.transports;
  if (std::find(known.begin(), known.end(), value) == known.end()) {
    return InvalidArgument(fmt::format("{}: unknown transport '{}' (known: {})",
                                       DisplayName(spec), value,
                                       fmt::join(known, ", ")));
  }
  state.params.transport = std::string(value);
  return Status::Ok();
}

Status ApplyWire(const FlagSpec& spec, std::string_view value, ParseState& state) {
  if (value == "perftest") {
    state.params.wire = bench::Wire::kPerftest;
  } else if (value == "xfer") {
    state.params.wire = bench::Wire::kXfer;
  } else {
    return InvalidArgument(
        fmt::format("{}: '{}' is neither perftest nor xfer", DisplayName(spec), value));
  }
  return Status::Ok();
}

// --rails auto|N|END,END...: the transport's choice, N rails, or this
// side's rail ends by name (ConnectOptions::rails, rail_ends).
Status ApplyRails(const FlagSpec& spec, std::string_view value, ParseState& state) {
  if (value == "auto") {
    state.params.rails = 0;
    return Status::Ok();
  }
  const bool count = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
  if (!count) {
    std::vector<std::string> names;
    for (size_t start = 0; start <= value.size();) {
      const size_t comma = std::min(value.find(',', start), value.size());
      names.emplace_back(value.substr(start, comma - start));
      if (names.back().empty() || names.size() > 16) {
        return InvalidArgument(fmt::format(
            "{}: '{}' is not 'auto', a rail count (1..16) or up to 16 rail ends, comma-separated",
            DisplayName(spec), value));
      }
      start = comma + 1;
    }
    state.params.rail_ends = std::move(names);
    return Status::Ok();
  }
  uint32_t rails = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), rails);
  if (error != std::errc() || end != value.data() + value.size() || rails < 1 || rails > 16) {
    return InvalidArgument(fmt::format("{}: '{}' is not 'auto' or a rail count, 1..16",
                                       DisplayName(spec), value));
  }
  state.params.rails = rails;
  return Status::Ok();
}

Status ApplyDevicePath(const FlagSpec& spec, std::string_view value, ParseState& state) {
  auto path = ParseDevicePath(value);
  if (!path.ok()) return InvalidArgument(DisplayName(spec) + ": " + path.status().message());
  state.params.device_path = *path;
  return Status::Ok();
}

// Sets the milliseconds field kField from a positive number of seconds,
// rounded up so that a tiny positive timeout never becomes 0 ms.
template <auto kField>
Status SetSeconds(const FlagSpec& spec, std::string_view value,
                  ParseState& state) {
  Result<double> seconds = ParsePositiveSeconds(value, kMaxTimeoutSeconds);
  if (!seconds.ok()) return seconds.status().WithContext(DisplayName(spec));
  state.params.*kField = std::chrono::milliseconds(
      static_cast<int64_t>(std::ceil(*seconds * 1000.0)));
  return Status::Ok();
}

Status ApplyLoopback(const FlagSpec&, std::string_view, ParseState& state) {
  state.loopback = true;
  return Status::Ok();
}

std::string DefaultSize(const BenchParams& d) {
  return fmt::format("{}", d.size);
}
std::string DefaultIters(const BenchParams& d) {
  return fmt::format("{}", d.iterations);
}
std::string DefaultTxDepth(const BenchParams& d) {
  return fmt::format("{}", d.tx_depth);
}
std::string DefaultRxDepth(const BenchParams& d) {
  return fmt::format("{}", d.rx_depth);
}
std::string DefaultCqMod(const BenchParams& d) {
  return fmt::format("{}", d.cq_mod);
}
std::string DefaultPort(const BenchParams& d) {
  return fmt::format("{}", d.port);
}
std::string DefaultQps(const BenchParams& d) {
  return fmt::format("{}", d.qps);
}
std::string DefaultPostList(const BenchParams& d) {
  return fmt::format("{}", d.post_list);
}
std::string DefaultTimeout(const BenchParams& d) {
  return fmt::format("{}", static_cast<double>(d.timeout.count()) / 1000.0);
}
std::string DefaultAcceptTimeout(const BenchParams& d) {
  return fmt::format("{}",
                     static_cast<double>(d.accept_timeout.count()) / 1000.0);
}
// floor(D/4) whole seconds, as perftest computes it.
std::string DefaultMargin(const BenchParams&) { return "floor(D/4) s, as perftest"; }

using S = Scope;
using G = Group;

constexpr FlagSpec kCoreFlags[] = {
    {'a', "all", "", S::kAll, G::kPerftest, "Run sizes from 2 till 2^23",
     nullptr, SetTrue<&BenchParams::all_sizes>},
    {'D', "duration", "<seconds>", S::kAll, G::kPerftest,
     "Run test for a customized period of seconds", nullptr, ApplyDuration},
    {'f', "margin", "<seconds>", S::kAll, G::kPerftest,
     "Margin of a -D run: only D - 2*margin is measured",
     DefaultMargin, ApplyMargin},
    {'F', "CPU-freq", "", S::kAll, G::kPerftest,
     "Do not show a warning even if cpufreq_ondemand module is loaded, and "
     "cpu-freq is not on max",
     nullptr, SetTrue<&BenchParams::cpu_freq_warning_off>},
    {'h', "help", "", S::kAll, G::kPerftest, "Show this help screen", nullptr,
     nullptr},
    {'\0', "pin_cores", "<cpu_list>", S::kAll, G::kPerftest,
     "Set CPU affinity. Accepts: single (0), list (0, 1, 2), range (0-3), or mixed "
     "(0-3,8,12-15).",
     nullptr, ApplyPinCores},
    {'\0', "numa_node", "<numa_node_id>", S::kAll, G::kPerftest,
     "Specify the NUMA node ID that should run the test.", nullptr, ApplyNumaNode},
    {'\0', "disable_numa", "", S::kAll, G::kPerftest,
     "Disable NUMA auto-detection and binding.", nullptr,
     SetTrue<&BenchParams::disable_numa>},
    {'H', "report-histogrm,report-histogram", "", S::kLatency, G::kPerftest,
     "Print out all results: each size's samples, sorted, before its row", nullptr,
     SetTrue<&BenchParams::report_histogram>},
    {'C', "report-cycles", "", S::kLatency, G::kPerftest,
     "Report times in cpu cycle units (the header still says usec, as perftest's)", nullptr,
     SetTrue<&BenchParams::report_cycles>},
    {'U', "report-unsorted", "", S::kLatency, G::kPerftest,
     "Print out unsorted results: each size's samples in the order taken", nullptr,
     SetTrue<&BenchParams::report_unsorted>},
    {'l', "post_list", "<list size>", S::kBandwidth, G::kPerftest,
     "Post list of send requests of <list size> size (instead of single post)",
     DefaultPostList, SetInteger<&BenchParams::post_list, 1, 15000>},
    {'n', "iters", "<iters>", S::kAll, G::kPerftest,
     "Number of exchanges (at least 5; per QP)", DefaultIters,
     SetInteger<&BenchParams::iterations, 5, 100000000>},
    {'b', "bidirectional", "", S::kBandwidth, G::kPerftest,
     "Measure bidirectional bandwidth (write_bw, read_bw, atomic_bw; default "
     "unidirectional)",
     nullptr, SetBidirectional},
    {'N', "noPeak", "", S::kBandwidth, G::kPerftest,
     "Cancel peak-bw calculation (default with peak up to iters=20000)",
     nullptr, SetTrue<&BenchParams::no_peak>},
    {'p', "port", "<port>", S::kAll, G::kPerftest,
     "Listen on/connect to port <port>; --loopback picks a free one unless given",
     DefaultPort,
     SetInteger<&BenchParams::port, 1, 65535>},
    {'q', "qp", "<num of qp's>", S::kBandwidth, G::kPerftest,
     "Num of qp's (engine streams), 1..64", DefaultQps,
     SetInteger<&BenchParams::qps, 1, 64>},
    {'Q', "cq-mod", "<n>", S::kAll, G::kPerftest,
     "Generate Cqe only after <n> completions, 1..1024 (1 when size > 8192)",
     DefaultCqMod, SetInteger<&BenchParams::cq_mod, 1, 1024>},
    {'r', "rx-depth", "<dep>", S::kAll, G::kPerftest,
     "Rx queue size (send tests), 1..16384", DefaultRxDepth, ApplyRxDepth},
    {'s', "size", "<size>", S::kAll, G::kPerftest,
     "Size of message to exchange (K/M/G suffix: x2^10/x2^20/x2^30)", DefaultSize,
     ApplySize},
    {'t', "tx-depth", "<dep>", S::kAll, G::kPerftest,
     "Size of tx queue, 1..15000 (capped to iters)", DefaultTxDepth,
     SetInteger<&BenchParams::tx_depth, 1, 15000>},
    {'V', "version", "", S::kAll, G::kPerftest, "Display version number",
     nullptr, nullptr},
    {'\0', "report_gbits", "", S::kAll, G::kPerftest,
     "Report Max/Average BW of test in Gbit/sec (instead of MiB/sec)", nullptr,
     ApplyReportGbits},
    {'\0', "use_hugepages", "", S::kAll, G::kPerftest,
     "Use Hugepages instead of contig, memalign allocations", nullptr,
     SetTrue<&BenchParams::use_hugepages>},
    {'\0', "use_cuda", "<gpu>", S::kOneSidedBandwidth, G::kPerftest,
     "Use CUDA device memory on GPU <gpu> for the test buffer", nullptr, ApplyCudaDevice},
    {'\0', "use_cuda_bus_id", "<bdf>", S::kOneSidedBandwidth, G::kPerftest,
     "Use CUDA device memory on the GPU at PCIe address <bdf>", nullptr, ApplyCudaBusId},
    {'\0', "use_cuda_dmabuf", "", S::kOneSidedBandwidth, G::kPerftest,
     "Register the CUDA buffer with the NIC through DMA-BUF (verbs; needs --use_cuda)", nullptr,
     SetTrue<&BenchParams::cuda_dmabuf>},
    {'\0', "perform_warm_up", "", S::kBandwidth, G::kPerftest,
     "Post tx-depth messages per QP before timing (shm/tcp always warm up)", nullptr,
     SetTrue<&BenchParams::perform_warm_up>},
    {'\0', "transport", "<name>", S::kAll, G::kXfer,
     "Transport to use (default: the engine's choice, shm on one host, "
     "else tcp)",
     nullptr, ApplyTransport},
    {'\0', "wire", "<perftest|xfer>", S::kAll, G::kXfer,
     "Out-of-band protocol: perftest's (RDMA verbs only; a stock ib_* tool can be the peer; "
     "the default on verbs) or xfer's (every transport; the default elsewhere)",
     nullptr, ApplyWire},
    {'\0', "device_path", "<path>", S::kOneSidedBandwidth, G::kXfer,
     "How this side's buffers move: the transport's own path where it has one, else staged "
     "(auto); its own path only (direct); bounced through pinned host memory (staged)",
     nullptr, ApplyDevicePath},
    {'\0', "rails", "<auto|N|ends>", S::kAll, G::kXfer,
     "Stripe the connection over N rails, 1..16: paths between the engines (tcp: address "
     "pairs in one subnet; more rails than paths repeat them), or over this side's rail ends "
     "named, comma-separated (tcp: local addresses, verbs: devices); auto (default): the "
     "first path and, over verbs, every device nearest this thread's NUMA node by topology; "
     "implies --wire xfer",
     nullptr, ApplyRails},
    {'\0', "timeline", "<ms>", S::kOneSidedBandwidth, G::kXfer,
     "Over several rails: print (and put in --json) what each rail carried every <ms>, "
     "10..60000, and when a rail went down (failover's recovery, docs/rails.md); implies --wire "
     "xfer",
     nullptr, SetInteger<&BenchParams::timeline_ms, 10, 60000>},
    {'\0', "prepared", "", S::kOneSided, G::kXfer,
     "Post through prepared transfer lists, checked once and submitted by index (the path of "
     "KV-cache movers); implies --wire xfer",
     nullptr, SetTrue<&BenchParams::prepared>},
    {'\0', "notify", "", S::kWriteLatency, G::kXfer,
     "Each WRITE carries a notification and each side waits for the peer's, not for the last "
     "byte: the latency from submit to the target seeing it; implies --wire xfer",
     nullptr, SetTrue<&BenchParams::notify>},
    {'\0', "loopback", "", S::kAll, G::kXfer,
     "Run the server in a child process and the client here (no <host>)", nullptr,
     ApplyLoopback},
    {'\0', "timeout", "<seconds>", S::kAll, G::kXfer,
     "Give up on any wait for the peer after <seconds>", DefaultTimeout,
     SetSeconds<&BenchParams::timeout>},
    {'\0', "accept_timeout", "<seconds>", S::kAll, G::kXfer,
     "How long a server waits for its client to connect", DefaultAcceptTimeout,
     SetSeconds<&BenchParams::accept_timeout>},
    {'\0', "secret-file", "<file>", S::kAll, G::kXfer,
     "Authenticate the engines with the secret in <file> (mode 600; both sides); implies "
     "--wire xfer: perftest's wire protocol has no place for a secret",
     nullptr, ApplySecretFile},
    {'\0', "json", "<file>", S::kAll, G::kXfer,
     "Also write the results as JSON to <file>", nullptr, ApplyJson},
    {'\0', "efficiency", "", S::kBandwidth, G::kXfer,
     "Add the path's ceiling and the measured fraction of it to the table", nullptr,
     SetTrue<&BenchParams::efficiency>},
};

}  // namespace

std::span<const FlagSpec> CoreFlags() { return kCoreFlags; }

}  // namespace xfer::cli
