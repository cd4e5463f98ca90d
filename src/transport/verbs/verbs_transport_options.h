// The verbs transport's settings: those EngineOptions::transport_options
// ["verbs"] sets (keys in xfer/engine.h) plus the internals tests tune.
#ifndef XFER_TRANSPORT_VERBS_VERBS_TRANSPORT_OPTIONS_H_
#define XFER_TRANSPORT_VERBS_VERBS_TRANSPORT_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "transport/option_table.h"
#include "xfer/engine.h"

namespace xfer::transport::verbs {

// Which RDMA device, port and GID the transport uses.
struct DeviceChoice {
  std::string device;  // as ibv_devices names it; empty: the first listed
  uint8_t port = 1;    // from 1; must be ACTIVE
  // The GID table index (perftest's -x); unset: chosen (ChooseGid).
  std::optional<int> gid_index;
};

// The default size of the pieces a large region is registered in
// (local_registrations.h).
inline constexpr uint64_t kDefaultRegistrationPieceBytes = uint64_t{256} << 20;

struct VerbsTransportOptions {
  DeviceChoice device;
  // Path MTU in bytes (256..4096); none = the smaller of both ports'
  // active MTU.
  std::optional<uint32_t> mtu_bytes;
  // Local ACK timeout exponent (perftest -u): 4.096 us * 2^n per try, 7
  // retries. 14 (67 ms) reports a dead peer in about half a second.
  uint8_t qp_timeout = 14;
  // WRs posted and not yet completed per QP (capped by max_qp_wr); more
  // wait in the transport's backlog.
  uint32_t send_depth = 256;
  // WRs each QP queues beyond send_depth before posts are refused with
  // kResourceExhausted (retry); also the most entries one post takes.
  uint32_t send_backlog = 65536;
  // Receive buffers kept posted per QP for the peer's SENDs, and their
  // size: messages travel in pieces of at most recv_slot_bytes.
  uint32_t recv_slots = 32;
  uint32_t recv_slot_bytes = 16 * 1024;
  // Striping of one-sided entries over the QPs (striping.h).
  uint64_t min_stripe_bytes = uint64_t{64} << 10;
  uint64_t max_wr_bytes = uint64_t{1} << 20;  // also capped by the port's max_msg_sz
  // A region longer than this is registered in pieces of this many bytes,
  // several at once (local_registrations.h). A multiple of 4096.
  uint64_t registration_piece_bytes = kDefaultRegistrationPieceBytes;
};

// The keys the "verbs" entry of EngineOptions::transport_options takes
// (option_table.h); static storage.
std::span<const OptionSpec> VerbsOptionTable();

// Reads the "verbs" entry of EngineOptions::transport_options. Errors:
// kInvalidArgument naming the key (unknown, not a number, out of range).
Result<VerbsTransportOptions> ReadVerbsTransportOptions(const TransportOptions& options);

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_VERBS_TRANSPORT_OPTIONS_H_
