// `xfer matrix [options] [host]`: HIXL-style bandwidth matrices on libxfer
// (../shared/reference/matrix.md). Without a host this is the target,
// with one the initiator, with --loopback both on this host.
//
// Flags (every value must parse completely):
//   --directions LIST     default: every direction (D2rD ... rD2H)
//   --transports LIST     default: every transport the host pair can use
//   --block_sizes SPEC    "16K:2M" (doubling) or "4K,64K,1M"; default 16K:2M
//   --transfer_size SIZE  bytes per sample, default 128M
//   --batch N             requests in flight per sample, default 1
//   --loops N / --warmup N  counted / uncounted samples, default 5 / 1
//   --memory / --remote_memory KIND  host (default) or hugepage
//   --streams N           engine streams per connection, default 1
//   --verify              check every cell's bytes after its samples
//   --timeout S, --accept_timeout S, -p PORT, -d DEV, -i PORT, -x GID
//   --json FILE, --csv FILE, --markdown FILE, --quiet, --loopback
//
// Decisions where HIXL is silent or lax:
//  * Each block must divide --transfer_size, and --batch may not exceed the
//    entries of the largest block (transfer_size / block): no request is
//    ever empty and every sample moves exactly --transfer_size bytes.
//  * A sample holds at most 2^20 entries, so 16 bytes of descriptor per
//    entry stay a small fraction of the buffer.
//  * Repeating a flag is an error, as in the perftest tests.
#ifndef XFER_CLI_MATRIX_FLAGS_H_
#define XFER_CLI_MATRIX_FLAGS_H_

#include <span>
#include <string>
#include <string_view>

#include "cli/flags.h"
#include "xfer/engine.h"
#include "xfer/status.h"

namespace xfer::cli {

// The subcommand word, argv[1].
inline constexpr std::string_view kMatrixCommand = "matrix";

// Parses the words after "matrix" (argv as typed goes in `command_line`,
// for the JSON). Yields kMatrix with ParsedCommand::matrix filled in, or
// kHelp with MatrixHelp() when -h/--help appears anywhere. The flags that
// `transport_options` (xfer::BuiltinTransportOptions) says set a
// transport's option fill MatrixConfig::transport_options. Thread-safe.
// Errors: kInvalidArgument naming the flag and the problem
// ("--block_sizes: '16K:3M': both ends of a range must be powers of two").
Result<ParsedCommand> ParseMatrixCommand(std::span<const std::string> args,
                                         std::span<const std::string> command_line,
                                         std::span<const TransportOptionInfo> transport_options);

// `xfer matrix --help`. Ends with a newline.
std::string MatrixHelp();

}  // namespace xfer::cli

#endif  // XFER_CLI_MATRIX_FLAGS_H_
