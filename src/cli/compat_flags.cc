// Rows for perftest flags that only mean something to RDMA verbs (validated
// as perftest does, stored in BenchParams::verbs for the verbs transport and
// reported as ignored in BenchParams::notes by the others) and for perftest
// flags xfer recognises but cannot honour yet (refused, so that a script
// never silently measures something else than it asked for).
#include <fmt/format.h>

#include <array>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "cli/flag_table.h"

namespace xfer::cli {
namespace {

// Remembers a verbs flag as typed: in params.verbs.typed, and for the
// "ignored" note a non-verbs transport gets.
Status RecordVerbsFlag(const FlagSpec& spec, std::string_view value,
                       ParseState& state) {
  std::string typed = TypedFlag(spec, value);
  state.params.verbs.typed.push_back(typed);
  state.verbs_flags.push_back(std::move(typed));
  return Status::Ok();
}

Status ApplyDevice(const FlagSpec& spec, std::string_view value,
                   ParseState& state) {
  if (value.empty()) {
    return InvalidArgument(DisplayName(spec) + ": empty device name");
  }
  state.params.verbs.device = std::string(value);
  return RecordVerbsFlag(spec, value, state);
}

template <typename T>
struct ValueOf {
  using type = T;
};
template <typename T>
struct ValueOf<std::optional<T>> {
  using type = T;
};

// Sets the VerbsParams integer (or optional integer) field kField to a value
// in [kMin, kMax].
template <auto kField, int64_t kMin, int64_t kMax>
Status SetVerbsInteger(const FlagSpec& spec, std::string_view value,
                       ParseState& state) {
  using Field =
      std::remove_reference_t<decltype(state.params.verbs.*kField)>;
  using Value = typename ValueOf<Field>::type;
  static_assert(std::is_integral_v<Value>);
  static_assert(std::in_range<Value>(kMin) && std::in_range<Value>(kMax));
  Result<int64_t> parsed = ParseFlagInteger(spec, value, kMin, kMax);
  if (!parsed.ok()) return parsed.status();
  state.params.verbs.*kField = static_cast<Value>(*parsed);
  return RecordVerbsFlag(spec, value, state);
}

// Sets the VerbsParams bool field kField.
template <auto kField>
Status SetVerbsTrue(const FlagSpec& spec, std::string_view value,
                    ParseState& state) {
  state.params.verbs.*kField = true;
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
  state.params.verbs.mtu = static_cast<uint32_t>(*mtu);
  return RecordVerbsFlag(spec, value, state);
}

// perftest's change_conn_type(): the names and the per-verb restrictions
// (UC not for READ/ATOMIC, UD only for SEND). XRC, DC and SRD are refused:
// the verbs path creates RC, UC and UD queue pairs only.
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
  if (value == "XRC" || value == "DC" || value == "SRD") {
    return InvalidArgument(
        fmt::format("{}: {} connection is not supported by xfer yet",
                    DisplayName(spec), value));
  }
  const bench::Verb verb = state.test->verb;
  if (value == "UC" &&
      (verb == bench::Verb::kRead || verb == bench::Verb::kAtomic)) {
    return InvalidArgument(fmt::format(
        "{}: UC connection is not possible in read and atomic tests",
        DisplayName(spec)));
  }
  if (value == "UD" && verb != bench::Verb::kSend) {
    return InvalidArgument(
        fmt::format("{}: {} connection is only possible in send tests",
                    DisplayName(spec), value));
  }
  state.connection = std::string(value);
  state.params.verbs.connection = value == "UC"   ? bench::Connection::kUC
                                  : value == "UD" ? bench::Connection::kUD
                                                  : bench::Connection::kRC;
  // Not in verbs_flags: a non-verbs transport notes -c its own way
  // (AddVerbsNotes in flags.cc), and RC needs no note at all.
  state.params.verbs.typed.push_back(TypedFlag(spec, value));
  return Status::Ok();
}

// perftest's -A: the atomic operation of atomic_bw / atomic_lat.
Status ApplyAtomicType(const FlagSpec& spec, std::string_view value,
                       ParseState& state) {
  if (value == "FETCH_AND_ADD") {
    state.params.verbs.atomic_type = bench::AtomicType::kFetchAndAdd;
  } else if (value == "CMP_AND_SWAP") {
    state.params.verbs.atomic_type = bench::AtomicType::kCompareAndSwap;
  } else {
    return InvalidArgument(fmt::format(
        "{}: invalid atomic type '{}'; choose CMP_AND_SWAP or FETCH_AND_ADD",
        DisplayName(spec), value));
  }
  // Atomic tests always run on verbs, so -A never needs an "ignored" note.
  state.params.verbs.typed.push_back(TypedFlag(spec, value));
  return Status::Ok();
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
    {'A', "atomic_type", "<type>", S::kAtomic, G::kVerbs,
     "Type of atomic operation from {CMP_AND_SWAP,FETCH_AND_ADD}",
     [](const bench::BenchParams&) -> std::string { return "FETCH_AND_ADD"; },
     ApplyAtomicType},
    {'c', "connection", "<RC/UC/UD>", S::kAll, G::kVerbs,
     "Connection type (XRC, DC and SRD not supported yet)",
     [](const bench::BenchParams&) -> std::string { return "RC"; },
     ApplyConnection},
    {'d', "ib-dev", "<dev>", S::kAll, G::kVerbs,
     "Use IB device <dev> (default first device found)", nullptr,
     ApplyDevice},
    {'i', "ib-port", "<port>", S::kAll, G::kVerbs,
     "Use port <port> of IB device (default 1)", nullptr,
     SetVerbsInteger<&bench::VerbsParams::ib_port, 1, 255>},
    {'I', "inline_size", "<size>", S::kWriteSend, G::kVerbs,
     "Max size of message to be sent in inline, 0..912", nullptr,
     SetVerbsInteger<&bench::VerbsParams::inline_size, 0, 912>},
    {'m', "mtu", "<mtu>", S::kAll, G::kVerbs,
     "MTU size : 256 - 4096 (default port mtu)", nullptr, ApplyMtu},
    {'o', "outs", "<num>", S::kReadAtomic, G::kVerbs,
     "Num of outstanding read/atom (0: max of device)", nullptr,
     SetVerbsInteger<&bench::VerbsParams::out_reads, 0, INT32_MAX>},
    {'S', "sl", "<sl>", S::kAll, G::kVerbs, "SL, 0..15 (default 0)", nullptr,
     SetVerbsInteger<&bench::VerbsParams::sl, 0, 15>},
    {'u', "qp-timeout", "<timeout>", S::kAll, G::kVerbs,
     "QP timeout, 4 usec * 2^(timeout), 0..31 (default 14)", nullptr,
     SetVerbsInteger<&bench::VerbsParams::qp_timeout, 0, 31>},
    {'x', "gid-index", "<index>", S::kAll, G::kVerbs,
     "Test uses GID with GID index, 0..64 (default: automatic on RoCE, none "
     "on IB)",
     nullptr, SetVerbsInteger<&bench::VerbsParams::gid_index, 0, 64>},
    {'\0', "ipv6", "", S::kAll, G::kVerbs, "Use IPv6 GID", nullptr,
     SetVerbsTrue<&bench::VerbsParams::prefer_ipv6>},
    {'\0', "pkey_index", "<pkey index>", S::kAll, G::kVerbs,
     "PKey index to use for QP, 0..65535 (default 0)", nullptr,
     SetVerbsInteger<&bench::VerbsParams::pkey_index, 0, 65535>},
    {'\0', "tclass", "<value>", S::kAll, G::kVerbs,
     "Set the Traffic Class in GRH, 0..255 (default 0)", nullptr,
     SetVerbsInteger<&bench::VerbsParams::traffic_class, 0, 255>},

    // perftest flags xfer does not implement yet.
    {'e', "events", "", S::kAll, G::kUnsupported, "Sleep on CQ events", nullptr,
     RejectUnsupported},
    {'g', "mcg", "", S::kAll, G::kUnsupported, "Send to a multicast group",
     nullptr, RejectUnsupported},
    {'L', "hop_limit", "<hop_limit>", S::kAll, G::kUnsupported,
     "Hop limit (raw Ethernet)", nullptr, RejectUnsupported},
    {'M', "MGID", "<multicast_gid>", S::kAll, G::kUnsupported,
     "Multicast group MGID", nullptr, RejectUnsupported},
    {'O', "dualport", "", S::kAll, G::kUnsupported, "Dual-port mode", nullptr,
     RejectUnsupported},
    {'R', "rdma_cm", "", S::kAll, G::kUnsupported,
     "Connect QPs with rdma_cm and run test on those QPs", nullptr,
     RejectUnsupported},
    {'T', "tos", "<tos value>", S::kAll, G::kUnsupported,
     "Set <tos value> to RDMA-CM QPs", nullptr, RejectUnsupported},
    {'w', "limit_bw", "<value>", S::kAll, G::kUnsupported,
     "Verifier limit for bandwidth", nullptr, RejectUnsupported},
    {'W', "report-counters", "<list>", S::kAll, G::kUnsupported,
     "Report performance counter change", nullptr, RejectUnsupported},
    {'X', "vector", "<completion vector>", S::kAll, G::kUnsupported,
     "Completion vector for events", nullptr, RejectUnsupported},
    {'y', "limit_msgrate", "<value>", S::kAll, G::kUnsupported,
     "Verifier limit for Msg Rate", nullptr, RejectUnsupported},
    {'z', "comm_rdma_cm,com_rdma_cm", "", S::kAll, G::kUnsupported,
     "Communicate with rdma_cm module to exchange data", nullptr,
     RejectUnsupported},
    {'\0', "cpu_util", "", S::kAll, G::kUnsupported, "Show CPU Utilization",
     nullptr, RejectUnsupported},
    {'\0', "force-link", "<IB/Ethernet>", S::kAll, G::kUnsupported,
     "Force the link(s) to a specific type", nullptr, RejectUnsupported},
    {'\0', "latency_gap", "<delay_time>", S::kAll, G::kUnsupported,
     "Delay time between each post send", nullptr, RejectUnsupported},
    {'\0', "mr_per_qp", "", S::kAll, G::kUnsupported,
     "Create memory region for each qp", nullptr, RejectUnsupported},
    {'\0', "odp", "", S::kAll, G::kUnsupported,
     "Use On Demand Paging instead of Memory Registration", nullptr,
     RejectUnsupported},
    {'\0', "out_json", "", S::kAll, G::kUnsupported,
     "Save the report in a json file", nullptr, RejectOutJson},
    {'\0', "out_json_file", "<file>", S::kAll, G::kUnsupported,
     "Name of the report json file", nullptr, RejectOutJson},
    {'\0', "output", "<units>", S::kAll, G::kUnsupported,
     "Print only one number", nullptr, RejectUnsupported},
    {'\0', "rate_limit", "<rate>", S::kAll, G::kUnsupported, "Rate limiter",
     nullptr, RejectUnsupported},
    {'\0', "report-both", "", S::kAll, G::kUnsupported,
     "Report RX & TX results separately", nullptr, RejectUnsupported},
    {'\0', "reversed", "", S::kAll, G::kUnsupported,
     "Reverse traffic direction", nullptr, RejectUnsupported},
    {'\0', "run_infinitely", "", S::kAll, G::kUnsupported, "Run test forever",
     nullptr, RejectUnsupported},
    {'\0', "use-srq", "", S::kSend, G::kUnsupported,
     "Use a Shared Receive Queue", nullptr, RejectUnsupported},
};

}  // namespace

std::span<const FlagSpec> CompatFlags() { return kCompatFlags; }

}  // namespace xfer::cli
