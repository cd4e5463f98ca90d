// What a failed work completion means for the request it belonged to: a
// status code the engine's callers can act on, and a message naming the
// operation, the stream and libibverbs' own words for the failure.
#ifndef XFER_TRANSPORT_VERBS_COMPLETION_STATUS_H_
#define XFER_TRANSPORT_VERBS_COMPLETION_STATUS_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "xfer/status.h"

namespace xfer::transport::verbs {

// The operations the transport posts.
enum class WrOp : uint8_t { kWrite, kRead, kSend, kRecv };

// "RDMA WRITE", "RDMA READ", "SEND", "RECV".
std::string_view WrOpName(WrOp op);

// The code a failed completion maps to:
//   IBV_WC_REM_ACCESS_ERR      kPermissionDenied (the peer's NIC refused
//                              the rkey, the range or the access)
//   IBV_WC_RETRY_EXC_ERR       kConnectionLost (no acknowledgement: the peer
//                              died, or the path is gone)
//   IBV_WC_RNR_RETRY_EXC_ERR   kTimeout (the peer posted no receive)
//   IBV_WC_WR_FLUSH_ERR        kConnectionLost (the QP failed earlier)
//   IBV_WC_REM_INV_REQ_ERR     kProtocolError (the peer's NIC found the
//                              request invalid, e.g. a SEND too long)
//   IBV_WC_LOC_QP_OP_ERR       kIoError (Soft-RoCE: a send its dead link
//                              could not make; the path's failure)
//   other IBV_WC_LOC_*_ERR, MW kInternal (we posted something wrong)
//   anything else              kIoError
// Pure.
StatusCode CompletionCode(ibv_wc_status status);

// "verbs: RDMA WRITE of 4096 bytes on stream 2 failed: remote access error
// (IBV_WC status 10, vendor error 0x88)". REQUIRES: status != IBV_WC_SUCCESS.
Status CompletionError(ibv_wc_status status, uint32_t vendor_error, WrOp op, uint32_t stream,
                       uint64_t length);

// What an async event of the endpoint's device context means for its
// connection: kConnectionLost naming the event for one that breaks it (a
// QP's fatal, request or access error, `qpn` naming the QP; a CQ error; a
// fatal device error; the port going down), nullopt for one that does not
// (the port coming back, a GID change, ...), which is acknowledged and
// left. Failover (the engine's rails) moves a broken rail's work to the
// others on this status. Pure.
std::optional<Status> AsyncEventFailure(ibv_event_type type, uint32_t qpn);

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_COMPLETION_STATUS_H_
