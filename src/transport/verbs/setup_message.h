// The verbs transport's messages on the engines' control connection, sent
// while both sides run CreateEndpoint (see setup_exchange.h for the order).
//
// Two kinds, each one Socket::SendMessage frame (all integers
// little-endian, decoded with WireReader: every byte is untrusted):
//
//   SETUP    u32 magic "XVRB", u16 version, u8 kind = 1, u8 link_layer,
//            u8 mtu (ibv_mtu code 1..5), u8 has_gid, u16 reserved = 0,
//            u32 streams, u32 recv_slot_bytes, u32 recv_slots,
//            streams x QP   { u16 lid, u32 qpn, u32 psn, u32 out_reads,
//                             16 bytes gid (zero when has_gid is 0) },
//            u32 keys,
//            keys x KEY { u64 region id, u64 address, u64 length,
//                         u32 rkey, u32 access }
//   VERDICT  u32 magic, u16 version, u8 kind = 2, u8 status code,
//            string message (u16 length + bytes)
//
// SETUP describes one side: its queue pairs (one per stream), the MTU of
// its port, the receive buffers its QPs keep posted for SENDs (a sender
// cuts messages into pieces of at most recv_slot_bytes), and the rkey of
// every memory registration (MR) of the regions its engine announced in the
// handshake: one KEY per MR, and a region registered in pieces (see
// local_registrations.h) has one KEY per piece, the pieces tiling it.
// VERDICT reports the outcome of a setup step ("ok", or why it failed), so
// that a side that fails takes its peer down with it instead of leaving it
// to time out.
#ifndef XFER_TRANSPORT_VERBS_SETUP_MESSAGE_H_
#define XFER_TRANSPORT_VERBS_SETUP_MESSAGE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "verbs/queue_pair.h"
#include "xfer/memory.h"
#include "xfer/status.h"

namespace xfer::transport::verbs {

inline constexpr uint32_t kSetupMagic = 0x42525658;  // "XVRB" on the wire
inline constexpr uint16_t kSetupVersion = 1;
inline constexpr uint32_t kMaxStreams = 64;
// MRs one side may key: the handshake's 4096 regions, some registered in
// several pieces.
inline constexpr size_t kMaxSetupKeys = 65536;
inline constexpr size_t kMaxVerdictText = 1024;
// Receive buffers: what a peer may announce.
inline constexpr uint32_t kMinRecvSlotBytes = 256;
inline constexpr uint32_t kMaxRecvSlotBytes = 1u << 20;
inline constexpr uint32_t kMaxRecvSlots = 4096;
// Header 24 bytes, 30 per QP, 4 for the count, 32 per key.
inline constexpr size_t kMaxSetupMessageBytes = 24 + kMaxStreams * 30 + 4 + kMaxSetupKeys * 32;

// What the peer's NIC needs to reach one MR: the id and access of the
// region it belongs to, the span it covers (the whole region, or one of the
// consecutive pieces the region was registered in) and its rkey.
struct RegionKey {
  uint64_t id = 0;
  uint64_t address = 0;
  uint64_t length = 0;
  uint32_t rkey = 0;
  Access access = Access::kNone;
};

// The link layer of a port, as the setup message carries it.
enum class WireLinkLayer : uint8_t { kUnspecified = 0, kInfiniBand = 1, kEthernet = 2 };

struct SetupMessage {
  WireLinkLayer link_layer = WireLinkLayer::kUnspecified;
  uint8_t mtu = 3;  // ibv_mtu code: 1 = 256 B ... 5 = 4096 B
  // True when the QPs address the peer through a GRH (RoCE, or -x on IB);
  // then every QpEndpoint::gid is set.
  bool has_gid = false;
  uint32_t recv_slot_bytes = 0;
  uint32_t recv_slots = 0;  // per QP
  std::vector<::xfer::verbs::QpEndpoint> qps;  // one per stream, in stream order
  std::vector<RegionKey> keys;  // one per MR, in any order
};

enum class MessageKind : uint8_t { kSetup = 1, kVerdict = 2 };

// A decoded message: `setup` is meaningful for kSetup, `verdict` for
// kVerdict.
struct PeerMessage {
  MessageKind kind = MessageKind::kSetup;
  SetupMessage setup;
  Status verdict;
};

// REQUIRES: `message` would pass DecodePeerMessage (1..64 QPs, at most
// kMaxSetupKeys keys, has_gid consistent with the QPs' gids).
std::vector<uint8_t> EncodeSetup(const SetupMessage& message);

// A verdict for `status`; a message longer than kMaxVerdictText is cut.
// REQUIRES: status is not kInProgress.
std::vector<uint8_t> EncodeVerdict(const Status& status);

// Parses untrusted bytes. Errors (kProtocolError naming the first bad
// field): wrong magic, version or kind, truncation, trailing bytes, a
// stream count outside 1..64, a QPN of 0 or above 24 bits, a PSN above 24
// bits, out_reads 0, an unknown MTU code or link layer, has_gid not 0/1, a
// non-zero reserved field, a receive-buffer geometry outside
// [kMinRecvSlotBytes, kMaxRecvSlotBytes] x [1, kMaxRecvSlots], more than
// kMaxSetupKeys keys, a key whose span is empty or wraps the address
// space or that grants unknown access bits, or a verdict with kInProgress or an
// unknown status code.
Result<PeerMessage> DecodePeerMessage(std::span<const uint8_t> bytes);

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_SETUP_MESSAGE_H_
