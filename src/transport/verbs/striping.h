// How the verbs transport cuts work into work requests (WRs): the pure
// arithmetic, kept apart from the verbs calls so that it is tested
// without a device.
//
// One-sided entries (StripeEntries). An entry shorter than two stripes
// stays whole, on the stream the caller named, so that small transfers keep
// perftest's one-stream-per-QP behaviour. A longer entry is spread over up
// to `streams` QPs, round-robin from the caller's stream, in pieces of at
// least `min_piece` bytes (so a piece never drops below the size where a
// WR's fixed cost matters). No piece exceeds `max_piece` (the port's
// max_msg_sz, and a bound on how long one WR may occupy a QP); an entry
// that needs more pieces than streams wraps round again. Piece sizes are
// equal and page-aligned except the last.
//
// Messages (CountMessagePieces): a SEND of `length` bytes is cut into
// pieces of the peer's receive-buffer size, all on one stream, in order.
#ifndef XFER_TRANSPORT_VERBS_STRIPING_H_
#define XFER_TRANSPORT_VERBS_STRIPING_H_

#include <cstdint>
#include <memory_resource>
#include <span>
#include <vector>

#include "xfer/status.h"

namespace xfer::transport::verbs {

struct StripeRule {
  uint32_t streams = 1;                    // QPs of the connection, >= 1
  uint64_t min_piece = uint64_t{64} << 10;  // a striped piece is at least this long
  uint64_t max_piece = uint64_t{1} << 20;   // no piece is longer; >= min_piece
};

// One WR's worth of one entry: bytes [offset, offset + length) of entry
// `entry`, to be carried by QP `stream`.
struct Piece {
  uint32_t entry = 0;
  uint32_t stream = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
};

// Alignment of every piece boundary inside an entry.
inline constexpr uint64_t kPieceAlignment = 4096;

// Appends the pieces of entries of the given lengths, entry by entry and
// in offset order within an entry, starting at stream `first_stream`.
// REQUIRES: every length > 0; rule.streams >= 1; first_stream <
// rule.streams; rule.max_piece >= rule.min_piece >= kPieceAlignment, both
// multiples of kPieceAlignment. Errors: kInvalidArgument when the batch
// needs more than UINT32_MAX pieces (a request counts its parts in 32
// bits); `out` is then left as it was.
Status StripeEntries(std::span<const uint64_t> lengths, uint32_t first_stream,
                     const StripeRule& rule, std::pmr::vector<Piece>& out);

// The number of pieces a `length`-byte message needs with receive buffers
// of `piece_bytes`. REQUIRES: length > 0, piece_bytes > 0.
uint64_t CountMessagePieces(uint64_t length, uint64_t piece_bytes);

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_STRIPING_H_
