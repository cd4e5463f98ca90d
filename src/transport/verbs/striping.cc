#include "transport/verbs/striping.h"

#include <algorithm>
#include <limits>

namespace xfer::transport::verbs {
namespace {

uint64_t CeilDiv(uint64_t a, uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

uint64_t RoundUp(uint64_t n, uint64_t unit) { return CeilDiv(n, unit) * unit; }

// The piece size for one entry; see striping.h.
uint64_t PieceSize(uint64_t length, const StripeRule& rule) {
  // How many QPs the entry may occupy with pieces of at least min_piece.
  const uint64_t ways = std::clamp<uint64_t>(length / rule.min_piece, 1, rule.streams);
  const uint64_t pieces = std::max(ways, CeilDiv(length, rule.max_piece));
  return std::min(RoundUp(CeilDiv(length, pieces), kPieceAlignment), rule.max_piece);
}

}  // namespace

Status StripeEntries(std::span<const uint64_t> lengths, uint32_t first_stream,
                     const StripeRule& rule, std::pmr::vector<Piece>& out) {
  const size_t start = out.size();
  uint64_t total = 0;
  for (size_t e = 0; e < lengths.size(); ++e) {
    const uint64_t length = lengths[e];
    const uint64_t size = PieceSize(length, rule);
    const uint64_t pieces = CeilDiv(length, size);
    total += pieces;
    if (total > std::numeric_limits<uint32_t>::max() || e > std::numeric_limits<uint32_t>::max()) {
      out.resize(start);
      return InvalidArgument("verbs: the batch needs more than 2^32-1 work requests");
    }
    for (uint64_t k = 0; k < pieces; ++k) {
      Piece piece;
      piece.entry = static_cast<uint32_t>(e);
      piece.stream = static_cast<uint32_t>((first_stream + k) % rule.streams);
      piece.offset = k * size;
      piece.length = std::min(size, length - piece.offset);
      out.push_back(piece);
    }
  }
  return Status::Ok();
}

uint64_t CountMessagePieces(uint64_t length, uint64_t piece_bytes) {
  return CeilDiv(length, piece_bytes);
}

}  // namespace xfer::transport::verbs
