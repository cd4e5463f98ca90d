// Parsing of command-line values the way perftest reads them: integers go
// through strtol(text, NULL, 0), so hex (0x10) and octal (010) are accepted,
// and -s takes a K or M suffix (and G, which perftest lacks). Unlike perftest, the whole text must parse:
// "12abc" is an error, not 12.
//
// Every function is pure and thread-safe. Errors are kInvalidArgument with a
// message fragment that does not name the flag ("'abc' is not a number");
// callers prefix the flag name.
#ifndef XFER_CLI_VALUE_PARSE_H_
#define XFER_CLI_VALUE_PARSE_H_

#include <cstdint>
#include <string_view>

#include "xfer/status.h"

namespace xfer::cli {

// Parses an optionally signed integer in decimal, 0x/0X hex or leading-0
// octal. Errors: kInvalidArgument when text is empty, has leading white
// space or trailing characters, is not an integer, or overflows int64_t.
Result<int64_t> ParseInteger(std::string_view text);

// ParseInteger, then requires min <= value <= max.
// Errors: as ParseInteger, plus kInvalidArgument "... is out of range".
Result<int64_t> ParseIntegerInRange(std::string_view text, int64_t min,
                                    int64_t max);

// A byte count for -s: an integer with an optional K (x2^10), M (x2^20) or
// G (x2^30) suffix, either case, then min <= value <= max; the range error
// names both bounds ("4G is out of range 1..2147483647").
// Errors: as ParseIntegerInRange; the message quotes the text as given.
Result<int64_t> ParseByteCount(std::string_view text, int64_t min, int64_t max);

// A byte count in HIXL's spelling: an integer with an optional binary
// suffix, case-insensitive: K, KB or KiB (x2^10), M, MB, MiB (x2^20), G, GB,
// GiB (x2^30). Then min <= value <= max. Errors: as ParseIntegerInRange,
// plus an unknown suffix; the message quotes the text as given.
Result<int64_t> ParseBinarySize(std::string_view text, int64_t min, int64_t max);

// A finite decimal number of seconds with 0 < value <= max ("10", "0.5",
// "1e2"). Errors: kInvalidArgument when text is not such a number.
Result<double> ParsePositiveSeconds(std::string_view text, double max);

}  // namespace xfer::cli

#endif  // XFER_CLI_VALUE_PARSE_H_
