// Queue pairs and the state machine that connects them
// (RESET -> INIT -> RTR -> RTS), with perftest's attribute choices
// (../shared/reference/perftest.md §1.5) so that a peer running stock
// perftest and one running xfer agree on every value that matters.
#ifndef XFER_VERBS_QUEUE_PAIR_H_
#define XFER_VERBS_QUEUE_PAIR_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "verbs/ib_handles.h"
#include "xfer/status.h"

namespace xfer::verbs {

enum class QpType { kRC, kUC, kUD };

// "RC", "UC", "UD".
std::string_view QpTypeName(QpType type);

// The UD queue key perftest uses on both sides.
inline constexpr uint32_t kUdQkey = 0x11111111;

// The connection facts one side tells the other about one queue pair
// (perftest's struct pingpong_dest, less the memory key).
struct QpEndpoint {
  uint16_t lid = 0;        // 0 on RoCE
  uint32_t qpn = 0;
  uint32_t psn = 0;        // 24 bits
  uint32_t out_reads = 1;  // READ/ATOMIC responder depth this side offers
  std::optional<std::array<uint8_t, 16>> gid;  // set iff a GRH is used
};

struct QpCapacity {
  uint32_t max_send_wr = 1;
  uint32_t max_recv_wr = 1;
  uint32_t max_inline = 0;
};

// Everything the modify_qp calls need that is not in a QpEndpoint.
struct QpPathSettings {
  QpType type = QpType::kRC;
  uint8_t port = 1;
  int gid_index = -1;      // local GID index for the GRH; -1: no GRH
  ibv_mtu mtu = IBV_MTU_1024;
  uint8_t sl = 0;
  uint8_t timeout = 14;    // -u: 4.096 us * 2^timeout
  uint8_t traffic_class = 0;
  uint16_t pkey_index = 0;
  int access_flags = 0;    // IBV_ACCESS_REMOTE_* granted to the peer
  // The most READ/ATOMIC requests this device may keep in flight as an
  // initiator (ibv_device_attr::max_qp_init_rd_atom): RTS uses
  // min(peer's out_reads, this) so a peer offering more than we support
  // cannot fail the transition (perftest issue #114).
  uint32_t max_init_rd_atomic = 1;
};

// Creates a QP of `type` on `pd` whose sends complete on `send_cq` and
// receives on `recv_cq`, with one SGE per WR. sq_sig_all is off: the caller
// decides which sends are signalled.
// Errors: kResourceExhausted (ibv_create_qp failed; the message names the
// requested depths and inline size, the usual culprits, and errno).
Result<QueuePairHandle> CreateQueuePair(ibv_pd* pd, ibv_cq* send_cq, ibv_cq* recv_cq,
                                        QpType type, const QpCapacity& capacity);

// RESET -> INIT -> RTR, and -> RTS when `to_rts` (perftest leaves the
// server of a unidirectional BW test in RTR). For UD, RTR/RTS need no peer
// facts; a UD sender addresses the peer through an address handle.
// Errors: kInternal naming the transition that failed and errno (EINVAL
// from RTR usually means a GID or MTU the port does not have).
Status ConnectQueuePair(ibv_qp* qp, const QpPathSettings& path, const QpEndpoint& local,
                        const QpEndpoint& remote, bool to_rts);

// The address handle a UD sender uses to reach `remote`.
// Errors: kInternal (ibv_create_ah failed, errno).
Result<AddressHandle> CreateAddressHandle(ibv_pd* pd, const QpPathSettings& path,
                                          const QpEndpoint& remote);

// perftest's initial PSN: 24 random bits.
uint32_t RandomPsn();

}  // namespace xfer::verbs

#endif  // XFER_VERBS_QUEUE_PAIR_H_
