// How a failed work completion is reported: what failed, where, and what
// that status usually means on a perftest run.
#ifndef XFER_PERFTEST_COMPLETION_ERROR_H_
#define XFER_PERFTEST_COMPLETION_ERROR_H_

#include <infiniband/verbs.h>

#include <fmt/format.h>

#include "xfer/status.h"

namespace xfer::perftest {

inline Status CompletionError(const ibv_wc& wc, const char* side) {
  const char* hint = "";
  switch (wc.status) {
    case IBV_WC_RETRY_EXC_ERR:
      hint = " (the peer stopped answering: it died, or its QP is gone)";
      break;
    case IBV_WC_LOC_LEN_ERR:
      hint = " (a message larger than the posted receive: do both sides use the same -s?)";
      break;
    case IBV_WC_REM_ACCESS_ERR:
      hint = " (the peer refused the remote address or key)";
      break;
    case IBV_WC_RNR_RETRY_EXC_ERR:
      hint = " (the peer had no receive posted)";
      break;
    default:
      break;
  }
  return IoError(fmt::format("{} completion failed on QPN {:#x}: {} (vendor error {:#x}){}", side,
                             wc.qp_num, ibv_wc_status_str(wc.status), wc.vendor_err, hint));
}

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_COMPLETION_ERROR_H_
