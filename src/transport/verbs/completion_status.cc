#include "transport/verbs/completion_status.h"

#include <fmt/format.h>

namespace xfer::transport::verbs {

std::string_view WrOpName(WrOp op) {
  switch (op) {
    case WrOp::kWrite: return "RDMA WRITE";
    case WrOp::kRead: return "RDMA READ";
    case WrOp::kSend: return "SEND";
    case WrOp::kRecv: return "RECV";
  }
  return "?";
}

StatusCode CompletionCode(ibv_wc_status status) {
  switch (status) {
    case IBV_WC_SUCCESS: return StatusCode::kOk;
    case IBV_WC_REM_ACCESS_ERR: return StatusCode::kPermissionDenied;
    case IBV_WC_RETRY_EXC_ERR: return StatusCode::kConnectionLost;
    case IBV_WC_RNR_RETRY_EXC_ERR: return StatusCode::kTimeout;
    case IBV_WC_WR_FLUSH_ERR: return StatusCode::kConnectionLost;
    case IBV_WC_REM_INV_REQ_ERR: return StatusCode::kProtocolError;
    // Soft-RoCE fails what it cannot transmit (its netdev down, no route)
    // with this status: the path's failure, which another rail may not
    // have, not a fault of the request.
    case IBV_WC_LOC_QP_OP_ERR: return StatusCode::kIoError;
    case IBV_WC_LOC_LEN_ERR:
    case IBV_WC_LOC_EEC_OP_ERR:
    case IBV_WC_LOC_PROT_ERR:
    case IBV_WC_MW_BIND_ERR:
    case IBV_WC_LOC_ACCESS_ERR:
    case IBV_WC_LOC_RDD_VIOL_ERR:
    case IBV_WC_INV_EECN_ERR:
    case IBV_WC_INV_EEC_STATE_ERR:
      return StatusCode::kInternal;
    default:
      return StatusCode::kIoError;
  }
}

Status CompletionError(ibv_wc_status status, uint32_t vendor_error, WrOp op, uint32_t stream,
                       uint64_t length) {
  const char* hint = "";
  switch (status) {
    case IBV_WC_RETRY_EXC_ERR:
      hint = "; the peer stopped acknowledging: it died, or the path to it is gone";
      break;
    case IBV_WC_REM_ACCESS_ERR:
      hint = "; the peer's NIC refused the remote key, range or access";
      break;
    case IBV_WC_RNR_RETRY_EXC_ERR:
      hint = "; the peer posted no receive";
      break;
    case IBV_WC_WR_FLUSH_ERR:
      hint = "; the queue pair had entered the error state";
      break;
    case IBV_WC_LOC_QP_OP_ERR:
      hint = "; the local queue pair could not send it (Soft-RoCE: its link is down)";
      break;
    default:
      break;
  }
  return Status(CompletionCode(status),
                fmt::format("verbs: {} of {} bytes on stream {} failed: {} (IBV_WC status {}, "
                            "vendor error {:#x}){}",
                            WrOpName(op), length, stream, ibv_wc_status_str(status),
                            static_cast<int>(status), vendor_error, hint));
}

std::optional<Status> AsyncEventFailure(ibv_event_type type, uint32_t qpn) {
  const char* hint = "";
  switch (type) {
    case IBV_EVENT_QP_FATAL:
    case IBV_EVENT_QP_REQ_ERR:
    case IBV_EVENT_QP_ACCESS_ERR:
      return ConnectionLost(
          fmt::format("verbs: async event on QP {:#x}: {}", qpn, ibv_event_type_str(type)));
    case IBV_EVENT_PORT_ERR:
      hint = " (the port went down: its link is down or unplugged)";
      break;
    case IBV_EVENT_CQ_ERR:
    case IBV_EVENT_DEVICE_FATAL:
      break;
    default:
      return std::nullopt;
  }
  return ConnectionLost(fmt::format("verbs: async event: {}{}", ibv_event_type_str(type), hint));
}

}  // namespace xfer::transport::verbs
