#include "cli/matrix_flags.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench/cluster/cluster_schedule.h"
#include "bench/matrix/block_size.h"
#include "bench/matrix/memory_placement.h"
#include "cli/host_argument.h"
#include "cli/matrix_values.h"
#include "cli/secret_file.h"
#include "cli/transport_option_flags.h"
#include "cli/value_parse.h"
#include "xfer/engine.h"

namespace xfer::cli {
namespace {

using matrix::MatrixConfig;

constexpr uint64_t kMaxEntriesPerSample = uint64_t{1} << 20;
constexpr int64_t kMaxTransferSize = int64_t{64} << 30;
constexpr double kMaxSeconds = 7 * 24 * 3600.0;

// The flags' text as typed; every value is parsed by xfer's own rules
// rather than CLI11's, so each error names the flag in one style.
struct MatrixText {
  std::string host;
  bool loopback = false;
  bool verify = false;
  bool quiet = false;
  bool efficiency = false;
  std::optional<std::string> port, directions, transports, block_sizes, transfer_size, batch,
      loops, warmup, streams, rails, memory, remote_memory, timeout, accept_timeout, device, ib_port,
      use_cuda, device_path, timeline,
      gid_index, json, csv, markdown, secret_file;
  // The cluster matrix (--scheme), under mpirun.
  std::optional<std::string> scheme, incast_target, fan_out_source, rank_devices, listen_host;
};

// CLI11 only collects the text; xfer parses it (see MatrixText).
void Text(CLI::App& app, const std::string& name, std::optional<std::string>& slot,
          const std::string& description) {
  app.add_option_function<std::string>(
      name, [&slot](const std::string& value) { slot = value; }, description);
}

void DefineFlags(CLI::App& app, MatrixText& t) {
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  app.add_option("host", t.host, "the target's host: run as the initiator");
  app.add_flag("--loopback", t.loopback, "run the target in a child process on this host");
  Text(app, "-p,--port", t.port, "control port (default 18515)");
  Text(app, "--directions", t.directions, "comma list (default: every direction)");
  Text(app, "--transports", t.transports, "comma list (default: every usable transport)");
  Text(app, "--block_sizes", t.block_sizes, "16K:2M (doubling) or 4K,64K,1M (default 16K:2M)");
  Text(app, "--transfer_size", t.transfer_size, "bytes per sample (default 128M)");
  Text(app, "--batch", t.batch, "requests in flight per sample (default 1)");
  Text(app, "--loops", t.loops, "counted samples per cell (default 5)");
  Text(app, "--warmup", t.warmup, "uncounted samples before them (default 1)");
  Text(app, "--memory", t.memory, "initiator host memory: host or hugepage (default host)");
  Text(app, "--remote_memory", t.remote_memory, "target host memory (default host)");
  Text(app, "--streams", t.streams, "engine streams per connection, 1..64 (default 1)");
  Text(app, "--rails", t.rails, "rails per connection: auto or 1..16 (default auto)");
  app.add_flag("--verify", t.verify, "check every cell's bytes after its samples");
  app.add_flag("--efficiency", t.efficiency, "print each cell as a fraction of its ceiling");
  Text(app, "--timeline", t.timeline, "ms: what each rail carries, interval by interval");
  Text(app, "--timeout", t.timeout, "seconds: every wait on the peer (default 10)");
  Text(app, "--accept_timeout", t.accept_timeout, "seconds the target waits (default 600)");
  Text(app, "--secret-file", t.secret_file, "the engines' shared secret (mode 600)");
  Text(app, "-d,--ib-dev", t.device, "RDMA device of the verbs transport");
  Text(app, "-i,--ib-port", t.ib_port, "its port (default 1)");
  Text(app, "-x,--gid-index", t.gid_index, "its GID index (default: automatic)");
  Text(app, "--use_cuda", t.use_cuda, "CUDA device ordinal of this side's device memory");
  Text(app, "--device_path", t.device_path, "auto, direct or staged (default auto)");
  Text(app, "--json", t.json, "write every sample of every cell as JSON");
  Text(app, "--csv", t.csv, "write one row per cell as CSV");
  Text(app, "--markdown", t.markdown, "write the table in the seed's Markdown layout");
  app.add_flag("--quiet", t.quiet, "no progress line on stderr");
  Text(app, "--scheme", t.scheme, "cluster matrix under mpirun: pairwise, all-to-all, ...");
  Text(app, "--incast_target", t.incast_target, "the rank every other writes into (default 0)");
  Text(app, "--fan_out_source", t.fan_out_source, "the rank that writes into every other (default 0)");
  Text(app, "--rank_devices", t.rank_devices, "RDMA device per local rank, comma list");
  Text(app, "--listen_host", t.listen_host, "IPv4 address this rank's engine listens on");
}

Status Flag(const char* name, const Status& status) {
  return InvalidArgument(fmt::format("{}: {}", name, status.message()));
}

template <typename T>
Status ParseCount(const std::optional<std::string>& text, const char* name, int64_t min,
                  int64_t max, T& out) {
  if (!text) return Status::Ok();
  auto value = ParseIntegerInRange(*text, min, max);
  if (!value.ok()) return Flag(name, value.status());
  out = static_cast<T>(*value);
  return Status::Ok();
}

Status ParseSeconds(const std::optional<std::string>& text, const char* name,
                    std::chrono::milliseconds& out) {
  if (!text) return Status::Ok();
  auto seconds = ParsePositiveSeconds(*text, kMaxSeconds);
  if (!seconds.ok()) return Flag(name, seconds.status());
  out = std::chrono::milliseconds(std::max<int64_t>(1, std::llround(*seconds * 1000.0)));
  return Status::Ok();
}

Status ParsePlacement(const std::optional<std::string>& text, const char* name, std::string& out) {
  if (!text) return Status::Ok();
  if (matrix::FindPlacement(*text) == nullptr) {
    return InvalidArgument(fmt::format("{}: '{}' is not a memory kind (expected one of {})", name,
                                       *text, matrix::PlacementNameList()));
  }
  out = *text;
  return Status::Ok();
}

Status ParseOutput(const std::optional<std::string>& text, const char* name, std::string& out) {
  if (!text) return Status::Ok();
  if (text->empty()) return InvalidArgument(fmt::format("{}: empty file name", name));
  out = *text;
  return Status::Ok();
}

Status ApplyMatrix(const MatrixText& t, MatrixConfig& c) {
  c.directions = matrix::AllDirections();
  if (t.directions) {
    auto directions = ParseDirectionList(*t.directions);
    if (!directions.ok()) return Flag("--directions", directions.status());
    c.directions = *directions;
  }
  if (t.transports) {
    auto names = ParseNameList(*t.transports);
    if (!names.ok()) return Flag("--transports", names.status());
    const std::vector<std::string> built = BuiltinTransports();
    for (const std::string& name : *names) {
      if (std::find(built.begin(), built.end(), name) == built.end()) {
        return InvalidArgument(fmt::format("--transports: '{}' is not a transport of this build "
                                           "(it has: {})", name, fmt::join(built, ", ")));
      }
    }
    c.transports = *names;
  }
  auto blocks = ParseBlockSizes(t.block_sizes.value_or("16K:2M"));
  if (!blocks.ok()) return Flag("--block_sizes", blocks.status());
  c.block_sizes = *blocks;
  if (t.transfer_size) {
    auto size = ParseBinarySize(*t.transfer_size, 1, kMaxTransferSize);
    if (!size.ok()) return Flag("--transfer_size", size.status());
    c.transfer_size = static_cast<uint64_t>(*size);
  }
  XFER_RETURN_IF_ERROR(ParseCount(t.batch, "--batch", 1, 1 << 16, c.batch));
  XFER_RETURN_IF_ERROR(ParseCount(t.loops, "--loops", 1, 100000, c.loops));
  XFER_RETURN_IF_ERROR(ParseCount(t.warmup, "--warmup", 0, 100000, c.warmup));
  XFER_RETURN_IF_ERROR(ParseCount(t.streams, "--streams", 1, 64, c.streams));
  if (t.rails && *t.rails != "auto") {
    XFER_RETURN_IF_ERROR(ParseCount(t.rails, "--rails", 1, 16, c.rails));
  }
  XFER_RETURN_IF_ERROR(ParsePlacement(t.memory, "--memory", c.memory));
  XFER_RETURN_IF_ERROR(ParsePlacement(t.remote_memory, "--remote_memory", c.remote_memory));
  c.verify = t.verify;
  c.efficiency = t.efficiency;
  XFER_RETURN_IF_ERROR(ParseCount(t.timeline, "--timeline", 10, 60000, c.timeline_ms));
  return Status::Ok();
}

// The rules that tie block sizes, --transfer_size and --batch together.
Status CheckShape(const MatrixConfig& c) {
  for (uint64_t block : c.block_sizes) {
    const std::string label = matrix::BlockLabel(block);
    if (block > c.transfer_size || c.transfer_size % block != 0) {
      return InvalidArgument(fmt::format(
          "--block_sizes: {} does not divide --transfer_size {} ({} bytes): every sample must "
          "move exactly --transfer_size", label, matrix::BlockLabel(c.transfer_size),
          c.transfer_size));
    }
    if (c.transfer_size / block > kMaxEntriesPerSample) {
      return InvalidArgument(fmt::format(
          "--block_sizes: {} makes {} entries per sample, at most {}; use larger blocks or a "
          "smaller --transfer_size", label, c.transfer_size / block, kMaxEntriesPerSample));
    }
  }
  const uint64_t fewest = c.transfer_size / c.block_sizes.back();
  if (c.batch > fewest) {
    return InvalidArgument(fmt::format(
        "--batch {}: the {} block makes only {} {} per sample; use --batch {} or less, or a "
        "larger --transfer_size", c.batch, matrix::BlockLabel(c.block_sizes.back()), fewest,
        fewest == 1 ? "entry" : "entries", fewest));
  }
  return Status::Ok();
}

// The device flags as typed, for the transport options they set
// (cli/transport_option_flags.h), under both spellings.
TypedFlags TypedDeviceFlags(const MatrixText& t) {
  TypedFlags typed;
  auto add = [&typed](const std::optional<std::string>& value, const char* short_name,
                      const char* long_name) {
    if (!value) return;
    typed[short_name] = *value;
    typed[long_name] = *value;
  };
  add(t.device, "-d", "--ib-dev");
  add(t.ib_port, "-i", "--ib-port");
  add(t.gid_index, "-x", "--gid-index");
  return typed;
}

Status ApplySession(const MatrixText& t, MatrixConfig& c) {
  const bool cluster = t.scheme.has_value();
  XFER_RETURN_IF_ERROR(ParseCount(t.port, "-p/--port", 1, 65535, c.port));
  XFER_RETURN_IF_ERROR(ParseSeconds(t.timeout, "--timeout", c.timeout));
  XFER_RETURN_IF_ERROR(ParseSeconds(t.accept_timeout, "--accept_timeout", c.accept_timeout));
  if (t.secret_file) {
    auto secret = ReadSecretFile(*t.secret_file);
    if (!secret.ok()) return secret.status();
    c.secret = std::move(secret.value());
  }
  if (t.device) {
    if (t.device->empty()) return InvalidArgument("-d/--ib-dev: empty device name");
    c.verbs.device = *t.device;
  }
  XFER_RETURN_IF_ERROR(ParseCount(t.ib_port, "-i/--ib-port", 1, 255, c.verbs.port));
  XFER_RETURN_IF_ERROR(ParseCount(t.use_cuda, "--use_cuda", 0, 1023, c.cuda_device));
  if (t.device_path) {
    auto path = ParseDevicePath(*t.device_path);
    if (!path.ok()) return Flag("--device_path", path.status());
    c.device_path = *path;
  }
  if (t.gid_index) {
    int gid = 0;
    XFER_RETURN_IF_ERROR(ParseCount(t.gid_index, "-x/--gid-index", 0, 255, gid));
    c.verbs.gid_index = gid;
  }
  XFER_RETURN_IF_ERROR(ParseOutput(t.json, "--json", c.json_path));
  XFER_RETURN_IF_ERROR(ParseOutput(t.csv, "--csv", c.csv_path));
  XFER_RETURN_IF_ERROR(ParseOutput(t.markdown, "--markdown", c.markdown_path));
  c.quiet = t.quiet;
  if (t.loopback && !t.host.empty()) {
    return InvalidArgument(
        fmt::format("--loopback cannot be combined with a <host> argument ('{}')", t.host));
  }
  if (!t.host.empty()) XFER_RETURN_IF_ERROR(CheckHostArgument(HostWithoutBrackets(t.host)));
  c.role = t.loopback ? matrix::Role::kLoopback
                      : (t.host.empty() ? matrix::Role::kTarget : matrix::Role::kInitiator);
  // --loopback without -p: the child target listens on a free port, as a
  // test's loopback server does; with -p, on that one.
  if (t.loopback && !t.port) c.port = 0;
  c.host = HostWithoutBrackets(t.host);
  const bool writes_files = !c.json_path.empty() || !c.csv_path.empty() || !c.markdown_path.empty();
  if (!cluster && c.role == matrix::Role::kTarget && writes_files) {
    return InvalidArgument("--json/--csv/--markdown: the initiator writes the results; give them "
                           "to the side with the <host> argument");
  }
  if (!cluster && c.role == matrix::Role::kTarget && c.timeline_ms != 0) {
    return InvalidArgument("--timeline: the initiator samples the rails and prints the timeline; "
                           "give it to the side with the <host> argument");
  }
  return Status::Ok();
}

bool IsHostToHost(const matrix::Direction& direction) {
  return direction.initiator == 'H' && direction.target == 'H';
}

// The cluster matrix's own flags, and what it refuses of the two-host
// matrix's: the ranks come from mpirun, cells move host memory only, one
// transport at most, and the one file is --json.
Status ApplyCluster(const MatrixText& t, std::span<const TransportOptionInfo> transport_options,
                    cluster::ClusterConfig& c) {
  auto scheme = cluster::ParseScheme(*t.scheme);
  if (!scheme.ok()) return Flag("--scheme", scheme.status());
  c.scheme = *scheme;
  if (!t.host.empty()) {
    return InvalidArgument(fmt::format(
        "--scheme: the ranks come from mpirun, so no <host> argument ('{}'); run 'mpirun -np N "
        "xfer matrix --scheme {} ...'", t.host, *t.scheme));
  }
  if (t.loopback) return InvalidArgument("--scheme cannot be combined with --loopback");
  if (t.markdown) {
    return InvalidArgument(
        "--markdown: HIXL's layout has no place for ranks; the cluster matrix (--scheme) writes "
        "--json and --csv");
  }
  if (t.verify || t.efficiency || t.timeline) {
    return InvalidArgument(fmt::format("{}: not measured by the cluster matrix (--scheme)",
                                       t.verify       ? "--verify"
                                       : t.efficiency ? "--efficiency"
                                                      : "--timeline"));
  }
  if (t.use_cuda) {
    return InvalidArgument("--use_cuda: the cluster matrix (--scheme) moves host memory only");
  }
  MatrixConfig& m = c.matrix;
  if (!t.directions) m.directions = {matrix::Direction{OpCode::kWrite, 'H', 'H'}};
  for (const matrix::Direction& direction : m.directions) {
    if (!IsHostToHost(direction)) {
      return InvalidArgument(fmt::format(
          "--directions: {}: the cluster matrix (--scheme) moves host memory only (H2rH, rH2H)",
          direction.Name()));
    }
  }
  if (m.transports.size() > 1) {
    return InvalidArgument(fmt::format(
        "--transports: the cluster matrix (--scheme) runs one transport, not {}",
        fmt::join(m.transports, ",")));
  }
  if (t.incast_target) {
    if (c.scheme != cluster::Scheme::kIncast) {
      return InvalidArgument("--incast_target: only with --scheme incast");
    }
    XFER_RETURN_IF_ERROR(ParseCount(t.incast_target, "--incast_target", 0, 1 << 20,
                                    c.incast_target));
  }
  if (t.fan_out_source) {
    if (c.scheme != cluster::Scheme::kFanOut) {
      return InvalidArgument("--fan_out_source: only with --scheme fan-out");
    }
    XFER_RETURN_IF_ERROR(ParseCount(t.fan_out_source, "--fan_out_source", 0, 1 << 20,
                                    c.fan_out_source));
  }
  if (t.rank_devices) {
    auto devices = ParseNameList(*t.rank_devices);
    if (!devices.ok()) return Flag("--rank_devices", devices.status());
    if (t.device) return InvalidArgument("--rank_devices cannot be combined with -d/--ib-dev");
    c.rank_devices = *devices;
    for (const std::string& device : c.rank_devices) {
      TypedFlags typed = TypedDeviceFlags(t);
      typed["-d"] = device;
      typed["--ib-dev"] = device;
      c.rank_transport_options.push_back(TransportOptionsFromFlags(typed, transport_options));
    }
  }
  if (t.listen_host) {
    in_addr address{};
    if (::inet_pton(AF_INET, t.listen_host->c_str(), &address) != 1) {
      return InvalidArgument(
          fmt::format("--listen_host: '{}' is not an IPv4 address", *t.listen_host));
    }
    c.listen_host = *t.listen_host;
  }
  return Status::Ok();
}

// The cluster matrix's flags without --scheme mean a mistake.
Status RefuseClusterFlags(const MatrixText& t) {
  const std::pair<const char*, bool> flags[] = {{"--incast_target", t.incast_target.has_value()},
                                                {"--fan_out_source", t.fan_out_source.has_value()},
                                                {"--rank_devices", t.rank_devices.has_value()},
                                                {"--listen_host", t.listen_host.has_value()}};
  for (const auto& [name, given] : flags) {
    if (given) return InvalidArgument(fmt::format("{}: only with --scheme (the cluster matrix)", name));
  }
  return Status::Ok();
}

}  // namespace

std::string MatrixHelp() {
  return fmt::format(
      "Usage:\n"
      "  xfer matrix [options]             be the target and wait for an initiator\n"
      "  xfer matrix [options] <host>      be the initiator, measuring against <host>\n"
      "  xfer matrix [options] --loopback  both on this host (target in a child process)\n"
      "  mpirun -np N xfer matrix --scheme S [options]   the cluster matrix (below)\n"
      "\n"
      "HIXL-style bandwidth matrix on libxfer: a row per block size, a column per\n"
      "direction x transport. A direction is initiator memory x target memory x\n"
      "operation, 'r' marking the remote side: H2rH writes local host memory into\n"
      "remote host memory, rH2H reads remote host memory into local host memory.\n"
      "One sample moves --transfer_size bytes as transfer_size/block entries of\n"
      "one batched Submit; a cell is the median of --loops samples after --warmup\n"
      "uncounted ones, in GB/s = 10^9 bytes/s, with its min and max in the JSON.\n"
      "Both sides must be given the same matrix flags.\n"
      "\n"
      "Options:\n"
      "  --directions LIST     of {} (default: all)\n"
      "  --transports LIST     of {} (default: every one the pair can use)\n"
      "  --block_sizes SPEC    16K:2M doubles from 16 KiB to 2 MiB; or a list 4K,64K,1M\n"
      "                        (K = 2^10, M = 2^20, G = 2^30; default 16K:2M)\n"
      "  --transfer_size SIZE  bytes per sample (default 128M = 128 MiB)\n"
      "  --batch N             requests in flight per sample (default 1)\n"
      "  --loops N             counted samples per cell (default 5)\n"
      "  --warmup N            uncounted samples before them (default 1)\n"
      "  --memory KIND         the initiator's host memory: host or hugepage (default host)\n"
      "  --remote_memory KIND  the target's host memory (default host)\n"
      "  --use_cuda GPU        CUDA device ordinal of this side's device memory, the D\n"
      "                        of a direction (default 0); each side names its own\n"
      "  --streams N           engine streams per connection, 1..64 (default 1)\n"
      "  --rails auto|N        rails each connection is striped over, 1..16 (tcp: address\n"
      "                        pairs in one subnet; default auto, the transport's choice)\n"
      "  --verify              after each cell's samples, move fresh data once more and\n"
      "                        check every byte; a mismatch fails the run (host memory\n"
      "                        cells only: device cells are measured, not checked)\n"
      "  --timeline MS         per connection striped over several rails (--rails 2 or\n"
      "                        more), what each rail carried every MS ms (10..60000)\n"
      "                        while its cells ran, and when a rail went down and came\n"
      "                        back; after the tables, and in --json\n"
      "  --efficiency          after each table, every cell's median as a percentage\n"
      "                        of its path's ceiling (shm: single-core memcpy of the\n"
      "                        block size, measured before the cells; --json always\n"
      "                        records the ceilings)\n"
      "  --device_path PATH    how this side's buffers move: auto (the transport's own\n"
      "                        path where it has one, else staged), direct (its own\n"
      "                        path only: other cells read n/a), staged (bounced\n"
      "                        through pinned host memory, host memory too); run the\n"
      "                        matrix twice to see what the direct path buys\n"
      "  --timeout SECONDS     bound on every wait: a sample, a control message,\n"
      "                        connecting (default 10)\n"
      "  --accept_timeout S    how long the target waits for its initiator (default 600)\n"
      "  --secret-file FILE    authenticate the engines with the secret in FILE (only its\n"
      "                        owner may read it): a peer without it is refused before\n"
      "                        it learns any region; both sides need the same FILE\n"
      "  -p, --port PORT       control port (default 18515; --loopback: a free port)\n"
      "  -d, --ib-dev DEV      RDMA device of the verbs transport (default: the first)\n"
      "  -i, --ib-port PORT    its port (default 1)\n"
      "  -x, --gid-index N     its GID index (default: chosen automatically)\n"
      "  --json FILE           every sample of every cell, schema xfer.matrix v1\n"
      "  --csv FILE            one row per cell\n"
      "  --markdown FILE       the table in HIXL's Markdown layout\n"
      "  --quiet               no progress line on stderr\n"
      "  -h, --help            show this help screen\n"
      "\n"
      "Cluster matrix (every rank under mpirun, e.g. mpirun -np 8 xfer matrix\n"
      "--scheme all-to-all --json run.json):\n"
      "  --scheme S            {}: which ranks move data to which,\n"
      "                        and which flows run together (rank 0 prints the plan)\n"
      "  --incast_target R     the rank the others write into (incast; default 0)\n"
      "  --fan_out_source R    the rank that writes into the others at once (fan-out;\n"
      "                        default 0)\n"
      "  --rank_devices LIST   RDMA device per local rank (mlx5_0,mlx5_1: by local\n"
      "                        rank modulo the list)\n"
      "  --listen_host ADDR    IPv4 address this rank's engine listens on (default:\n"
      "                        the first non-loopback interface that is up)\n"
      "  Directions H2rH (default) and rH2H; one transport at most; --json and\n"
      "  --csv (a row per flow cell: source, target, hosts, round, step, then the\n"
      "  matrix's columns), no --markdown.\n"
      "\n"
      "A cell the host pair cannot run reads n/a, with the reason below its table\n"
      "and in the JSON. The JSON and CSV are rewritten after every cell, so an\n"
      "interrupted run keeps every finished cell.\n",
      matrix::DirectionNameList(), fmt::join(BuiltinTransports(), ", "),
      cluster::SchemeNameList());
}

Result<ParsedCommand> ParseMatrixCommand(std::span<const std::string> args,
                                         std::span<const std::string> command_line,
                                         std::span<const TransportOptionInfo> transport_options) {
  ParsedCommand command;
  for (const std::string& word : args) {
    if (word == "-h" || word == "--help") {
      command.action = ParsedCommand::Action::kHelp;
      command.help_text = MatrixHelp();
      return command;
    }
  }
  CLI::App app("xfer matrix", "xfer matrix");
  app.set_help_flag();
  MatrixText text;
  DefineFlags(app, text);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ArgumentMismatch& e) {
    // Every option takes one value; a repeated one is refused in the words
    // of the tests' parser (and perftest's): "--loops: Duplicated argument".
    const std::string what = e.what();
    const size_t colon = what.find(": At Most 1 required");
    if (colon == std::string::npos) {
      return InvalidArgument(fmt::format("matrix: {} (see 'xfer matrix --help')", what));
    }
    return InvalidArgument(fmt::format("{}: Duplicated argument (see 'xfer matrix --help')",
                                       what.substr(0, colon)));
  } catch (const CLI::ExtrasError& e) {
    // As every other command says it: "unknown option '--bogus'".
    const std::string what = e.what();
    const size_t colon = what.rfind(": ");
    const std::string word = colon == std::string::npos ? what : what.substr(colon + 2);
    const char* kind = word.starts_with('-') ? "unknown option" : "unexpected argument";
    return InvalidArgument(fmt::format("{} '{}' (see 'xfer matrix --help')", kind, word));
  } catch (const CLI::ParseError& e) {
    return InvalidArgument(fmt::format("matrix: {} (see 'xfer matrix --help')", e.what()));
  }
  MatrixConfig& config = command.matrix;
  XFER_RETURN_IF_ERROR(ApplyMatrix(text, config));
  XFER_RETURN_IF_ERROR(CheckShape(config));
  XFER_RETURN_IF_ERROR(ApplySession(text, config));
  config.transport_options = TransportOptionsFromFlags(TypedDeviceFlags(text), transport_options);
  config.command_line.assign(command_line.begin(), command_line.end());
  command.secret_file = text.secret_file.value_or("");
  if (!text.scheme) {
    XFER_RETURN_IF_ERROR(RefuseClusterFlags(text));
    command.action = ParsedCommand::Action::kMatrix;
    return command;
  }
  command.cluster.matrix = std::move(config);
  command.matrix = {};
  XFER_RETURN_IF_ERROR(ApplyCluster(text, transport_options, command.cluster));
  command.action = ParsedCommand::Action::kCluster;
  return command;
}

}  // namespace xfer::cli
