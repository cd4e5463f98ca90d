// The shm transport's parsers of bytes the peer process wrote, against
// hostile input: shared by shm_fuzzer.cc and
// tests/transport/shm/fuzz_regression_test.cc. The first input byte picks
// the parser (modulo kShmParsers), the rest is the message:
//   0 a message-channel frame: the 16-byte FrameHeader, then for an ABORT its
//     body (frame.h); 1 the rendezvous announcement; 2 the rendezvous token
//     (rendezvous.h); 3 the region table's header; 4 one of its rows
//     (region_table.h).
#ifndef XFER_TESTS_TRANSPORT_SHM_FUZZ_SHM_CHECK_H_
#define XFER_TESTS_TRANSPORT_SHM_FUZZ_SHM_CHECK_H_

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "support/fuzz_check.h"
#include "transport/shm/frame.h"
#include "transport/shm/region_table.h"
#include "transport/shm/rendezvous.h"

namespace xfer::fuzz {

enum class ShmParser : uint8_t { kFrame = 0, kAnnouncement, kToken, kTableHeader, kRegionRow };
inline constexpr uint8_t kShmParsers = 5;

// A frame as the channel reads it: the header, checked before any payload
// is read; an ABORT's body then decodes into the peer's failure, which must
// encode back into a body that decodes to the same failure.
inline std::string CheckShmFrame(std::span<const uint8_t> bytes) {
  using namespace xfer::transport::shm;
  FrameHeader header{};
  if (bytes.size() < sizeof(header)) return "";
  std::memcpy(&header, bytes.data(), sizeof(header));
  const Status checked = CheckFrameHeader(header);
  if (!checked.ok()) return CheckRefusal("shm frame header", checked);
  if (header.type != kFrameAbort) return "";
  const std::span<const uint8_t> body = bytes.subspan(sizeof(header));
  if (body.size() < header.length) return "";  // the peer died mid-frame
  // Wrapped: a Result<Status> could not tell the value from the error.
  struct PeerFailure {
    Status status;
  };
  auto decode = [](std::span<const uint8_t> abort_body) -> Result<PeerFailure> {
    PeerFailure failure;
    XFER_RETURN_IF_ERROR(DecodeAbortBody(abort_body, failure.status));
    return failure;
  };
  auto encode = [](const PeerFailure& failure) { return EncodeAbortBody(failure.status); };
  return CheckRoundTrip("shm abort body", body.first(static_cast<size_t>(header.length)), decode,
                        encode);
}

inline std::string CheckShmInput(std::span<const uint8_t> input) {
  using namespace xfer::transport::shm;
  if (input.empty()) return "";
  const std::span<const uint8_t> message = input.subspan(1);
  switch (static_cast<ShmParser>(input[0] % kShmParsers)) {
    case ShmParser::kFrame:
      return CheckShmFrame(message);
    case ShmParser::kAnnouncement:
      return CheckRoundTrip("shm rendezvous announcement", message, DecodeAnnouncement,
                            EncodeAnnouncement, /*canonical=*/true);
    case ShmParser::kToken:
      return CheckRoundTrip("shm rendezvous token", message, DecodeRendezvousToken,
                            EncodeRendezvousToken, /*canonical=*/true);
    case ShmParser::kTableHeader:
      return CheckRoundTrip("shm region table header", message, DecodeRegionTableHeader,
                            EncodeRegionTableHeader, /*canonical=*/true);
    case ShmParser::kRegionRow:
      return CheckRoundTrip("shm region row", message, DecodeRegionRow, EncodeRegionRow,
                            /*canonical=*/true);
  }
  return "";
}

}  // namespace xfer::fuzz

#endif  // XFER_TESTS_TRANSPORT_SHM_FUZZ_SHM_CHECK_H_
