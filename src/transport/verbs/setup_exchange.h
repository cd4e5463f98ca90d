// The verbs transport's setup protocol on the engines' control socket. Both
// sides run it at the same time, each with its EndpointResources:
//
//   1. SETUP swap. The initiator sends first and the acceptor answers, so
//      two large messages (4096 regions are 128 KiB) never wait on each
//      other's socket buffers. A side that could not even create its
//      resources sends a VERDICT with its error instead (ReportSetupFailure).
//   2. Check the peer's SETUP against ours and the handshake: the stream
//      count, its keyed regions against the table its engine announced,
//      the link layer and GRH use; settle the MTU (the smaller of both
//      ports' active MTU, unless overridden).
//   3. Connect every QP (RESET -> INIT -> RTR -> RTS) and post its receive
//      slots. VERDICT swap: from here on both sides' QPs can receive.
//   4. Probe: a zero-length SEND on every QP; wait for our probes'
//      completions and for the peer's probes. This proves the data path in
//      both directions now (an unreachable GID or a dead link fails here,
//      in about half a second of RC retries, instead of at the first
//      transfer), so the engine can still fall back to another transport.
//      VERDICT swap.
//
// Every step is bounded by setup.deadline. A side that fails sends its
// reason in the next VERDICT, so both sides return an error naming it
// instead of one of them waiting out the deadline.
#ifndef XFER_TRANSPORT_VERBS_SETUP_EXCHANGE_H_
#define XFER_TRANSPORT_VERBS_SETUP_EXCHANGE_H_

#include <cstdint>

#include "transport/transport.h"
#include "transport/verbs/endpoint_resources.h"
#include "transport/verbs/remote_keys.h"
#include "transport/verbs/setup_message.h"
#include "xfer/status.h"

namespace xfer::transport::verbs {

// What the exchange learned of the peer.
struct PeerSetup {
  RemoteKeys keys;               // rkeys of the peer's announced regions
  uint32_t recv_slot_bytes = 0;  // the longest SEND piece the peer takes
};

// Runs steps 1-4. On success every QP is in RTS, its receive slots are
// posted (and the probes' slots reposted), and the CQ is empty.
// `mtu_overridden`: keep resources.path.mtu instead of the minimum.
// Errors: kTimeout, kConnectionLost (control socket), kProtocolError (the
// peer's bytes), kFailedPrecondition (incompatible ports), the peer's own
// error (its code, "the peer's verbs setup failed: ..."), kInternal (a QP
// transition), whatever a failed probe completion maps to.
Result<PeerSetup> RunSetupExchange(EndpointResources& resources, const EndpointSetup& setup,
                                   bool mtu_overridden);

// For a side that failed before it had resources: sends `failure` as its
// step-1 message (keeping the initiator-first order) and returns it.
Status ReportSetupFailure(const EndpointSetup& setup, const Status& failure);

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_SETUP_EXCHANGE_H_
