// Rows for perftest flags that only mean something to RDMA verbs (validated
// as perftest does, then reported as ignored in BenchParams::notes) and for
// perftest flags xfer recognises but cannot honour yet (refused, so that a
// script never silently measures something else than it asked for).
#include <fmt/format.h>

#include <array>
#include <cctype>
#include <string>

#include "cli/flag_table.h"

namespace xfer::cli {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

Status RecordVerbsFlag(const FlagSpec& spec, std::string_view value,
                       ParseState& state) {
  state.verbs_flags.push_back(TypedFlag(spec, value));
  return Status::Ok();
}

Status ApplyDevice(const FlagSpec& spec, std::string_view value,
                   ParseState& state) {
  if (value.empty()) {
    return InvalidArgument(DisplayName(spec) + ": empty device name");
  }
  return RecordVerbsFlag(spec, value, state);
}

template <int64_t kMin, int64_t kMax>
Status ApplyVerbsInteger(const FlagSpec& spec, std::string_view value,
                         ParseState& state) {
  Result<int64_t> parsed = ParseFlagInteger(spec, value, kMin, kMax);
  if (!parsed.ok()) return parsed.status();
  return RecordVerbsFlag(spec, value, state);
}

Status ApplyMtu(const FlagSpec& spec, std::string_view value,
                ParseState& state) {
  Result<int64_t> mtu = ParseFlagInteger(spec, value, 256, 4096);
  if (!mtu.ok()) return mtu.status();
  if (*mtu != 256 && *mtu != 512 && *mtu != 1024 && *mtu != 2048 &&
      *mtu != 4096) {
    return InvalidArgument(
        fmt::format("{}: {} is not an IB MTU (256, 512, 1024, 2048 or 4096)",
                    DisplayName(spec), value));
  }
  return RecordVerbsFlag(spec, value, state);
}

// perftest's change_conn_type(): the names and the per-verb restrictions.
Status ApplyConnection(const FlagSpec& spec, std::string_view value,
                       ParseState& state) {
  constexpr std::array<std::string_view, 6> kTypes = {"RC",  "UC", "UD",
                                                      "XRC", "DC", "SRD"};
  bool known = false;
  for (std::string_view type : kTypes) known = known || type == value;
  if (!known) {
    return InvalidArgument(fmt::format(
        "{}: invalid connection type '{}'; choose from RC, UC, UD, XRC, DC, "
        "SRD",
        DisplayName(spec), value));
  }
  const bench::Verb verb = state.test->verb;
  if (value == "UC" && verb == bench::Verb::kRead) {
    return InvalidArgument(fmt::format(
        "{}: UC connection is not possible in read tests", DisplayName(spec)));
  }
  if ((value == "UD" || value == "SRD") && verb != bench::Verb::kSend) {
    return InvalidArgument(
        fmt::format("{}: {} connection is only possible in send tests",
                    DisplayName(spec), value));
  }
  state.connection = std::string(value);
  return Status::Ok();
}

Status ApplyRdmaCm(const FlagSpec& spec, std::string_view value,
                   ParseState& state) {
  state.rdma_cm = true;
  return RecordVerbsFlag(spec, value, state);
}

Status ApplyTos(const FlagSpec& spec, std::string_view value,
                ParseState& state) {
  state.tos_given = true;
  return ApplyVerbsInteger<0, 255>(spec, value, state);
}

Status ApplyForceLink(const FlagSpec& spec, std::string_view value,
                      ParseState& state) {
  if (!EqualsIgnoreCase(value, "IB") && !EqualsIgnoreCase(value, "Ethernet")) {
    return InvalidArgument(
        fmt::format("{}: invalid link layer '{}'; use IB or Ethernet",
                    DisplayName(spec), value));
  }
  return RecordVerbsFlag(spec, value, state);
}

Status RejectUnsupported(const FlagSpec& spec, std::string_view, ParseState&) {
  return InvalidArgument(fmt::format(
      "{}: perftest flag not supported by xfer yet", DisplayName(spec)));
}

Status RejectOutJson(const FlagSpec& spec, std::string_view, ParseState&) {
  return InvalidArgument(fmt::format(
      "{}: not supported; use --json <file> instead", DisplayName(spec)));
}

using S = Scope;
using G = Group;

constexpr FlagSpec kCompatFlags[] = {
    // RDMA verbs flags.
    {'c', "connection", "<RC/UC/UD/XRC/DC/SRD>", S::kAll, G::kVerbs,
     "Connection type",
     [](const bench::BenchParams&) -> std::string { return "RC"; },
     ApplyConnection},
    {'d', "ib-dev", "<dev>", S::kAll, G::kVerbs, "Use IB device <dev>", nullptr,
     ApplyDevice},
    {'i', "ib-port", "<port>", S::kAll, G::kVerbs,
     "Use port <port> of IB device", nullptr, ApplyVerbsInteger<1, 255>},
    {'I', "inline_size", "<size>", S::kNotRead, G::kVerbs,
     "Max size of message to be sent in inline", nullptr,
     ApplyVerbsInteger<0, 912>},
    {'m', "mtu", "<mtu>", S::kAll, G::kVerbs, "MTU size : 256 - 4096", nullptr,
     ApplyMtu},
    {'o', "outs", "<num>", S::kRead, G::kVerbs,
     "Num of outstanding read/atom (0: max of device)", nullptr,
     ApplyVerbsInteger<0, INT32_MAX>},
    {'R', "rdma_cm", "", S::kAll, G::kVerbs,
     "Connect QPs with rdma_cm and run test on those QPs", nullptr,
     ApplyRdmaCm},
    {'S', "sl", "<sl>", S::kAll, G::kVerbs, "SL, 0..15", nullptr,
     ApplyVerbsInteger<0, 15>},
    {'T', "tos", "<tos value>", S::kAll, G::kVerbs,
     "Set <tos value> to RDMA-CM QPs (needs -R), 0..255", nullptr, ApplyTos},
    {'u', "qp-timeout", "<timeout>", S::kAll, G::kVerbs,
     "QP timeout, 4 usec * 2^(timeout), 0..31", nullptr,
     ApplyVerbsInteger<0, 31>},
    {'x', "gid-index", "<index>", S::kAll, G::kVerbs,
     "Test uses GID with GID index, 0..64", nullptr, ApplyVerbsInteger<0, 64>},
    {'z', "comm_rdma_cm,com_rdma_cm", "", S::kAll, G::kVerbs,
     "Communicate with rdma_cm module to exchange data", nullptr,
     RecordVerbsFlag},
    {'\0', "force-link", "<IB/Ethernet>", S::kAll, G::kVerbs,
     "Force the link(s) to a specific type", nullptr, ApplyForceLink},
    {'\0', "ipv6", "", S::kAll, G::kVerbs, "Use IPv6 GID", nullptr,
     RecordVerbsFlag},
    {'\0', "mr_per_qp", "", S::kAll, G::kVerbs,
     "Create memory region for each qp", nullptr, RecordVerbsFlag},
    {'\0', "odp", "", S::kAll, G::kVerbs,
     "Use On Demand Paging instead of Memory Registration", nullptr,
     RecordVerbsFlag},
    {'\0', "pkey_index", "<pkey index>", S::kAll, G::kVerbs,
     "PKey index to use for QP", nullptr, ApplyVerbsInteger<0, 65535>},
    {'\0', "tclass", "<value>", S::kAll, G::kVerbs,
     "Set the Traffic Class in GRH, 0..255", nullptr,
     ApplyVerbsInteger<0, 255>},
    {'\0', "use-srq", "", S::kSend, G::kVerbs, "Use a Shared Receive Queue",
     nullptr, RecordVerbsFlag},

    // perftest flags xfer does not implement yet.
    {'A', "atomic_type", "<type>", S::kAll, G::kUnsupported,
     "Atomic operation type (atomic tests)", nullptr, RejectUnsupported},
    {'C', "report-cycles", "", S::kAll, G::kUnsupported,
     "Report times in cpu cycle units", nullptr, RejectUnsupported},
    {'e', "events", "", S::kAll, G::kUnsupported, "Sleep on CQ events", nullptr,
     RejectUnsupported},
    {'g', "mcg", "", S::kAll, G::kUnsupported, "Send to a multicast group",
     nullptr, RejectUnsupported},
    {'H', "report-histogrm,report-histogram", "", S::kAll, G::kUnsupported,
     "Print out all results", nullptr, RejectUnsupported},
    {'L', "hop_limit", "<hop_limit>", S::kAll, G::kUnsupported,
     "Hop limit (raw Ethernet)", nullptr, RejectUnsupported},
    {'M', "MGID", "<multicast_gid>", S::kAll, G::kUnsupported,
     "Multicast group MGID", nullptr, RejectUnsupported},
    {'O', "dualport", "", S::kAll, G::kUnsupported, "Dual-port mode", nullptr,
     RejectUnsupported},
    {'U', "report-unsorted", "", S::kAll, G::kUnsupported,
     "Print out unsorted results", nullptr, RejectUnsupported},
    {'w', "limit_bw", "<value>", S::kAll, G::kUnsupported,
     "Verifier limit for bandwidth", nullptr, RejectUnsupported},
    {'W', "report-counters", "<list>", S::kAll, G::kUnsupported,
     "Report performance counter change", nullptr, RejectUnsupported},
    {'X', "vector", "<completion vector>", S::kAll, G::kUnsupported,
     "Completion vector for events", nullptr, RejectUnsupported},
    {'y', "limit_msgrate", "<value>", S::kAll, G::kUnsupported,
     "Verifier limit for Msg Rate", nullptr, RejectUnsupported},
    {'\0', "cpu_util", "", S::kAll, G::kUnsupported, "Show CPU Utilization",
     nullptr, RejectUnsupported},
    {'\0', "latency_gap", "<delay_time>", S::kAll, G::kUnsupported,
     "Delay time between each post send", nullptr, RejectUnsupported},
    {'\0', "out_json", "", S::kAll, G::kUnsupported,
     "Save the report in a json file", nullptr, RejectOutJson},
    {'\0', "out_json_file", "<file>", S::kAll, G::kUnsupported,
     "Name of the report json file", nullptr, RejectOutJson},
    {'\0', "output", "<units>", S::kAll, G::kUnsupported,
     "Print only one number", nullptr, RejectUnsupported},
    {'\0', "perform_warm_up", "", S::kAll, G::kUnsupported,
     "Warm up before measuring", nullptr, RejectUnsupported},
    {'\0', "rate_limit", "<rate>", S::kAll, G::kUnsupported, "Rate limiter",
     nullptr, RejectUnsupported},
    {'\0', "report-both", "", S::kAll, G::kUnsupported,
     "Report RX & TX results separately", nullptr, RejectUnsupported},
    {'\0', "reversed", "", S::kAll, G::kUnsupported,
     "Reverse traffic direction", nullptr, RejectUnsupported},
    {'\0', "run_infinitely", "", S::kAll, G::kUnsupported, "Run test forever",
     nullptr, RejectUnsupported},
    {'\0', "use_cuda", "", S::kAll, G::kUnsupported, "Use CUDA device memory",
     nullptr, RejectUnsupported},
};

}  // namespace

std::span<const FlagSpec> CompatFlags() { return kCompatFlags; }

}  // namespace xfer::cli
