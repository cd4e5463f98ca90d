// The shape of one row of the flag table, and the state the rows write
// into while a command line is parsed. Internal to src/cli.
#ifndef XFER_CLI_FLAG_SPEC_H_
#define XFER_CLI_FLAG_SPEC_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bench/model/bench_params.h"
#include "cli/benchmark_catalog.h"
#include "xfer/status.h"

namespace xfer::cli {

// Which tests accept a flag. A flag used outside its scope is a usage error,
// as in perftest (e.g. -q in a latency test).
enum class Scope : uint8_t {
  kAll,
  kBandwidth,  // *_bw
  kSend,        // send_bw, send_lat
  kReadAtomic,  // read and atomic tests (perftest's -o)
  kWriteSend,   // write and send tests (perftest's -I)
  kAtomic,      // atomic_bw, atomic_lat
  kOneSidedBandwidth,  // write_bw, read_bw
  kWriteLatency,       // write_lat
  kOneSided,           // write_bw, read_bw, write_lat, read_lat
  kLatency,            // *_lat
};

// True when `test` accepts flags of `scope`.
bool InScope(Scope scope, const TestInfo& test);

// Why a flag of `scope` is refused: "only for bandwidth tests (write_bw,
// read_bw, send_bw)".
std::string_view ScopeRequirement(Scope scope);

// Where a flag is listed in --help, and what it does.
enum class Group : uint8_t {
  kPerftest,     // perftest flags xfer implements
  kXfer,         // xfer's own flags
  kVerbs,        // RDMA-verbs-only flags: BenchParams::verbs; noted as
                 // ignored when the transport is not verbs
  kUnsupported,  // perftest flags xfer recognises but cannot honour yet
};

// Everything the rows have said so far. Rows write `params` directly; the
// rest is what the perftest couplings (couplings.h) and the verbs notes need
// after every flag has been read.
struct ParseState {
  const TestInfo* test = nullptr;
  bench::BenchParams params;            // seeded with DefaultParams(*test)
  std::vector<std::string> transports;  // names --transport accepts
  std::vector<std::string> given;       // canonical long names, in order
  bool loopback = false;                // --loopback
  std::string secret_file;              // --secret-file as given
  std::string connection = "RC";        // -c
  // Verbs flags as typed ("-d mlx5_0"), except -c and -A, turned into
  // "ignored" notes when the transport is not verbs. (params.verbs.typed
  // holds every verbs flag, -c and -A included.)
  std::vector<std::string> verbs_flags;
  // Every flag given with a value, under each of its spellings ("-d" and
  // "--ib-dev"), for the transport options the flags set
  // (cli/transport_option_flags.h).
  std::map<std::string, std::string, std::less<>> typed;

  // True when the flag with canonical long name `long_name` was given.
  bool Given(std::string_view long_name) const;
};

struct FlagSpec;

// Applies one occurrence of a flag. `value` is empty for a switch.
// Errors: kInvalidArgument whose message starts with the flag's name.
using ApplyFn = Status (*)(const FlagSpec& spec, std::string_view value,
                           ParseState& state);

// Renders the per-test default for --help ("65536"); may be null.
using DefaultFn = std::string (*)(const bench::BenchParams& defaults);

struct FlagSpec {
  char short_name;              // 's', or '\0' for a long-only flag
  std::string_view long_names;  // "size"; aliases after commas
  std::string_view value_name;  // "<size>"; empty for a switch
  Scope scope;
  Group group;
  std::string_view help;
  DefaultFn default_text;  // null: no "(default ...)" in help
  ApplyFn apply;           // null only for -h and -V
};

// The canonical long name: the first of long_names ("comm_rdma_cm").
std::string_view LongName(const FlagSpec& spec);

// How messages name the flag: "-s/--size", or "--json" for long-only flags.
std::string DisplayName(const FlagSpec& spec);

// True for flags that take a value.
inline bool TakesValue(const FlagSpec& spec) {
  return !spec.value_name.empty();
}

}  // namespace xfer::cli

#endif  // XFER_CLI_FLAG_SPEC_H_
