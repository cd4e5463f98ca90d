#include "transport/verbs/setup_exchange.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "transport/verbs/completion_status.h"
#include "verbs/mtu.h"

namespace xfer::transport::verbs {
namespace {

namespace ibv = ::xfer::verbs;

const char* LinkLayerText(WireLinkLayer layer) {
  switch (layer) {
    case WireLinkLayer::kInfiniBand: return "InfiniBand";
    case WireLinkLayer::kEthernet: return "Ethernet (RoCE)";
    case WireLinkLayer::kUnspecified: break;
  }
  return "unspecified";
}

// Sends ours and receives the peer's message, initiator first. The
// acceptor answers even a message that does not parse (with ours), so the
// initiator learns of the failure from its verdict rather than a timeout.
Result<PeerMessage> Swap(const EndpointSetup& setup, const std::vector<uint8_t>& mine) {
  Socket& control = *setup.control;
  Result<std::vector<uint8_t>> theirs = std::vector<uint8_t>{};
  if (setup.initiator) {
    XFER_RETURN_IF_ERROR(control.SendMessage(mine, setup.deadline).WithContext("verbs setup"));
    theirs = control.RecvMessage(kMaxSetupMessageBytes, setup.deadline);
  } else {
    theirs = control.RecvMessage(kMaxSetupMessageBytes, setup.deadline);
    if (!theirs.ok()) return theirs.status().WithContext("verbs setup");
    XFER_RETURN_IF_ERROR(control.SendMessage(mine, setup.deadline).WithContext("verbs setup"));
  }
  if (!theirs.ok()) return theirs.status().WithContext("verbs setup");
  return DecodePeerMessage(*theirs);
}

Status PeerFailed(const Status& verdict) {
  return Status(verdict.code(), "the peer's verbs setup failed: " + verdict.message());
}

// A VERDICT swap: OK only when both sides report OK.
Status AgreeOn(const EndpointSetup& setup, const Status& mine) {
  auto theirs = Swap(setup, EncodeVerdict(mine));
  if (!mine.ok()) return mine;
  if (!theirs.ok()) return theirs.status();
  if (theirs->kind != MessageKind::kVerdict) {
    return ProtocolError("verbs setup: the peer sent a SETUP where a VERDICT was due");
  }
  if (!theirs->verdict.ok()) return PeerFailed(theirs->verdict);
  return Status::Ok();
}

// Step 2: the peer's SETUP against ours and the handshake.
Status CheckPeer(const EndpointResources& r, const EndpointSetup& setup, const SetupMessage& peer,
                 bool mtu_overridden, ibv_mtu& mtu) {
  if (peer.qps.size() != setup.streams) {
    return ProtocolError(fmt::format("verbs setup: the peer set up {} streams, we {}",
                                     peer.qps.size(), setup.streams));
  }
  XFER_RETURN_IF_ERROR(MatchAnnouncedRegions(peer.keys, setup.remote.regions()));
  if (peer.link_layer != r.link_layer) {
    return FailedPrecondition(fmt::format(
        "verbs setup: our port is {}, the peer's is {}: they cannot be connected",
        LinkLayerText(r.link_layer), LinkLayerText(peer.link_layer)));
  }
  const bool ours_gid = r.path.gid_index >= 0;
  if (peer.has_gid != ours_gid) {
    return FailedPrecondition(fmt::format(
        "verbs setup: {} a GID (GRH) and the peer {}: set the GID index on both sides or "
        "neither",
        ours_gid ? "we address the peer through" : "we use no", peer.has_gid ? "does" : "does not"));
  }
  mtu = r.path.mtu;
  if (!mtu_overridden) mtu = std::min(r.path.mtu, static_cast<ibv_mtu>(peer.mtu));
  return Status::Ok();
}

// Step 3.
Status ConnectAll(EndpointResources& r, const SetupMessage& peer) {
  for (uint32_t i = 0; i < r.qps.size(); ++i) {
    XFER_RETURN_IF_ERROR(
        ibv::ConnectQueuePair(r.qps[i].get(), r.path, r.local_qps[i], peer.qps[i], true)
            .WithContext(fmt::format("verbs setup: connecting stream {} (MTU {}, GID index {})",
                                     i, ibv::MtuBytes(r.path.mtu), r.path.gid_index)));
    XFER_RETURN_IF_ERROR(r.slots->PostAll(r.qps[i].get(), i));
  }
  return Status::Ok();
}

Status PostProbe(EndpointResources& r, uint32_t stream) {
  ibv_send_wr wr{};
  wr.wr_id = stream;  // sequence 0: the SendQueues' sequences start at 1
  wr.opcode = IBV_WR_SEND_WITH_IMM;
  wr.imm_data = 0;  // messages carry their length (>= 1): 0 marks a probe
  wr.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(r.qps[stream].get(), &wr, &bad); rc != 0) {
    return IoError(
        fmt::format("verbs setup: posting the probe on stream {}: {}", stream, std::strerror(rc)));
  }
  return Status::Ok();
}

// Step 4: our probes sent and acknowledged, the peer's received.
Status Probe(EndpointResources& r, const EndpointSetup& setup) {
  const auto streams = static_cast<uint32_t>(r.qps.size());
  for (uint32_t i = 0; i < streams; ++i) XFER_RETURN_IF_ERROR(PostProbe(r, i));
  uint32_t sent = 0;
  uint32_t received = 0;
  std::array<ibv_wc, 16> wcs;
  while (sent < streams || received < streams) {
    const int n = ibv_poll_cq(r.cq.get(), static_cast<int>(wcs.size()), wcs.data());
    if (n < 0) return IoError("verbs setup: ibv_poll_cq failed");
    if (n == 0) {
      if (setup.deadline.expired()) {
        return Timeout(fmt::format(
            "verbs setup: the probe of the data path did not complete in time ({} of {} "
            "probes acknowledged, {} of {} received)",
            sent, streams, received, streams));
      }
      // Setup only: a short sleep keeps this loop off the CPU.
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      continue;
    }
    for (int k = 0; k < n; ++k) {
      const ibv_wc& wc = wcs[static_cast<size_t>(k)];
      const bool is_recv = IsRecvWrId(wc.wr_id);
      const uint32_t stream = is_recv ? RecvWrIdQp(wc.wr_id) : static_cast<uint32_t>(wc.wr_id);
      if (wc.status != IBV_WC_SUCCESS) {
        return CompletionError(wc.status, wc.vendor_err, is_recv ? WrOp::kRecv : WrOp::kSend,
                               stream, 0)
            .WithContext("verbs setup: probing the data path");
      }
      if (!is_recv) {
        ++sent;
        continue;
      }
      if ((wc.wc_flags & IBV_WC_WITH_IMM) == 0 || wc.imm_data != 0 || wc.byte_len != 0 ||
          stream >= streams) {
        return ProtocolError(
            fmt::format("verbs setup: stream {} received something other than a probe", stream));
      }
      ++received;
      XFER_RETURN_IF_ERROR(r.slots->Post(r.qps[stream].get(), stream, RecvWrIdSlot(wc.wr_id)));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<PeerSetup> RunSetupExchange(EndpointResources& r, const EndpointSetup& setup,
                                   bool mtu_overridden) {
  // 1.
  auto theirs = Swap(setup, EncodeSetup(DescribeEndpoint(r)));
  if (!theirs.ok()) {
    // Unparseable: still tell the peer, which waits for our verdict.
    (void)AgreeOn(setup, theirs.status());
    return theirs.status();
  }
  if (theirs->kind == MessageKind::kVerdict) {
    // The peer failed before it had resources and has stopped.
    if (theirs->verdict.ok()) return ProtocolError("verbs setup: an OK verdict where SETUP was due");
    return PeerFailed(theirs->verdict);
  }
  const SetupMessage& peer = theirs->setup;
  // 2 and 3.
  ibv_mtu mtu = r.path.mtu;
  Status local = CheckPeer(r, setup, peer, mtu_overridden, mtu);
  if (local.ok()) {
    r.path.mtu = mtu;
    local = ConnectAll(r, peer);
  }
  XFER_RETURN_IF_ERROR(AgreeOn(setup, local));
  // 4.
  XFER_RETURN_IF_ERROR(AgreeOn(setup, Probe(r, setup)));
  PeerSetup result;
  result.keys = RemoteKeys(peer.keys);
  result.recv_slot_bytes = peer.recv_slot_bytes;
  return result;
}

Status ReportSetupFailure(const EndpointSetup& setup, const Status& failure) {
  if (setup.control != nullptr && setup.control->valid()) {
    (void)Swap(setup, EncodeVerdict(failure));
  }
  return failure;
}

}  // namespace xfer::transport::verbs
