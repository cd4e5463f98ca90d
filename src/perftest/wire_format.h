// The fixed-size messages of perftest's out-of-band protocol
// (../shared/reference/perftest.md §1.2, §1.4, §1.6), encoded and decoded
// as pure functions. Every decoder treats its input as hostile: a wrong
// length, a missing terminator or a malformed field is kProtocolError, never
// a crash or a partial parse.
#ifndef XFER_PERFTEST_WIRE_FORMAT_H_
#define XFER_PERFTEST_WIRE_FORMAT_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench/model/observer.h"
#include "xfer/status.h"

namespace xfer::perftest {

// ------------------------------------------------------------ P1: version
inline constexpr size_t kVersionSize = 16;

// The version xfer advertises. 6.28 is the first perftest that negotiates
// parameters, so two xfer peers (and a current perftest) detect mismatched
// flags instead of hanging; a 6.06 peer (Debian 12) simply skips that step.
inline constexpr std::string_view kAdvertisedVersion = "6.28";

// perftest refuses peers older than this (check_version_compatibility).
inline constexpr double kOldestCompatibleVersion = 5.70;

// strncpy(version, text, 16): the text, NUL-padded.
std::array<uint8_t, kVersionSize> EncodeVersion(std::string_view text);

// The peer's version as perftest reads it, with atof(), plus its text.
struct PeerVersion {
  std::string text;  // up to the first NUL, printable ASCII only
  double number = 0;
};
// Errors: kProtocolError for a wrong size, or text that is not a version
// number ("6.06"): perftest would atof() garbage into 0 and exit.
Result<PeerVersion> DecodeVersion(std::span<const uint8_t> bytes);

// ------------------------------------------------------- P3: system data
// A big-endian int32 (cycle buffer, then cache line size).
std::array<uint8_t, 4> EncodeInt32(int32_t value);
// Errors: kProtocolError for a wrong size.
Result<int32_t> DecodeInt32(std::span<const uint8_t> bytes);

// ---------------------------------------------------------------- P4: MTU
// "%d" of enum ibv_mtu and a NUL: 2 bytes to peers >= 5.31, else 4.
size_t MtuMessageSize(double peer_version);
std::vector<uint8_t> EncodeMtu(int mtu_code, size_t message_size);
// The peer's ibv_mtu code 1..5, or 0 when the message holds something else
// (perftest then keeps its own MTU). Errors: kProtocolError for a wrong size.
Result<int> DecodeMtu(std::span<const uint8_t> bytes);

// --------------------------------------------------------- X: key message
// KEY_MSG_SIZE (no GID) and KEY_MSG_SIZE_GID: the text and its NUL.
inline constexpr size_t kKeyMessageSize = 59;
inline constexpr size_t kKeyMessageGidSize = 108;

// perftest's pingpong_dest as text: "%04x:%04x:%06x:%06x:%08x:%016llx:%08x"
// (lid, out_reads, qpn, psn, rkey, vaddr, srqn), or with the 16 GID bytes as
// "%02x:" each between vaddr and srqn, and a trailing ':'. The GID form is
// used iff `address.gid` is set. srqn is always 0 (no XRC/DC).
std::vector<uint8_t> EncodeKeyMessage(const bench::QpAddress& address);

// Parses either form; `with_gid` says which the receiver expects (perftest
// decides by its own GID use, and the two sides must agree).
// Errors: kProtocolError for a wrong length, a missing NUL, a field that is
// not hex or does not fit its width (a 24-bit QPN or PSN, a 16-bit LID).
Result<bench::QpAddress> DecodeKeyMessage(std::span<const uint8_t> bytes, bool with_gid);

// --------------------------------------------------------- R: BW reports
// One 8-byte field of xchg_bw_reports: big-endian u64, or an IEEE double in
// network byte order.
std::array<uint8_t, 8> EncodeU64(uint64_t value);
std::array<uint8_t, 8> EncodeDouble(double value);
// Errors: kProtocolError for a wrong size.
Result<uint64_t> DecodeU64(std::span<const uint8_t> bytes);
Result<double> DecodeDouble(std::span<const uint8_t> bytes);

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_WIRE_FORMAT_H_
