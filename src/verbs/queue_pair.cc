#include "verbs/queue_pair.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>

namespace xfer::verbs {
namespace {

// perftest's fixed choices (§1.5): RNR NAK timer 12 (0.64 ms), 7 transport
// retries, 7 RNR retries ("infinite"), hop limit 255.
constexpr uint8_t kMinRnrTimer = 12;
constexpr uint8_t kRetryCount = 7;
constexpr uint8_t kRnrRetry = 7;
constexpr uint8_t kHopLimit = 0xFF;

ibv_qp_type ToIbv(QpType type) {
  switch (type) {
    case QpType::kRC: return IBV_QPT_RC;
    case QpType::kUC: return IBV_QPT_UC;
    case QpType::kUD: return IBV_QPT_UD;
  }
  return IBV_QPT_RC;
}

Status ModifyFailed(std::string_view transition, int error) {
  return Internal(fmt::format("ibv_modify_qp to {}: {}", transition, std::strerror(error)));
}

ibv_ah_attr AddressFor(const QpPathSettings& path, const QpEndpoint& remote) {
  ibv_ah_attr ah{};
  ah.dlid = remote.lid;
  ah.sl = path.sl;
  ah.port_num = path.port;
  if (path.gid_index >= 0 && remote.gid) {
    ah.is_global = 1;
    std::memcpy(ah.grh.dgid.raw, remote.gid->data(), remote.gid->size());
    ah.grh.sgid_index = static_cast<uint8_t>(path.gid_index);
    ah.grh.hop_limit = kHopLimit;
    ah.grh.traffic_class = path.traffic_class;
  }
  return ah;
}

Status ToInit(ibv_qp* qp, const QpPathSettings& path) {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = path.pkey_index;
  attr.port_num = path.port;
  int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
  if (path.type == QpType::kUD) {
    attr.qkey = kUdQkey;
    mask |= IBV_QP_QKEY;
  } else {
    attr.qp_access_flags = static_cast<unsigned>(path.access_flags);
    mask |= IBV_QP_ACCESS_FLAGS;
  }
  if (int rc = ibv_modify_qp(qp, &attr, mask); rc != 0) return ModifyFailed("INIT", rc);
  return Status::Ok();
}

Status ToRtr(ibv_qp* qp, const QpPathSettings& path, const QpEndpoint& local,
             const QpEndpoint& remote) {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_RTR;
  int mask = IBV_QP_STATE;
  if (path.type != QpType::kUD) {
    attr.path_mtu = path.mtu;
    attr.dest_qp_num = remote.qpn;
    attr.rq_psn = remote.psn;
    attr.ah_attr = AddressFor(path, remote);
    mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
    if (path.type == QpType::kRC) {
      attr.max_dest_rd_atomic = static_cast<uint8_t>(std::min<uint32_t>(local.out_reads, 255));
      attr.min_rnr_timer = kMinRnrTimer;
      mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    }
  }
  if (int rc = ibv_modify_qp(qp, &attr, mask); rc != 0) return ModifyFailed("RTR", rc);
  return Status::Ok();
}

Status ToRts(ibv_qp* qp, const QpPathSettings& path, const QpEndpoint& local,
             const QpEndpoint& remote) {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_RTS;
  attr.sq_psn = local.psn;
  int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
  if (path.type == QpType::kRC) {
    attr.timeout = path.timeout;
    attr.retry_cnt = kRetryCount;
    attr.rnr_retry = kRnrRetry;
    const uint32_t reads = std::min({remote.out_reads, path.max_init_rd_atomic, 255u});
    attr.max_rd_atomic = static_cast<uint8_t>(std::max<uint32_t>(reads, 1));
    mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
  }
  if (int rc = ibv_modify_qp(qp, &attr, mask); rc != 0) return ModifyFailed("RTS", rc);
  return Status::Ok();
}

}  // namespace

std::string_view QpTypeName(QpType type) {
  switch (type) {
    case QpType::kRC: return "RC";
    case QpType::kUC: return "UC";
    case QpType::kUD: return "UD";
  }
  return "?";
}

Result<QueuePairHandle> CreateQueuePair(ibv_pd* pd, ibv_cq* send_cq, ibv_cq* recv_cq,
                                        QpType type, const QpCapacity& capacity) {
  ibv_qp_init_attr init{};
  init.send_cq = send_cq;
  init.recv_cq = recv_cq;
  init.qp_type = ToIbv(type);
  init.cap.max_send_wr = capacity.max_send_wr;
  init.cap.max_recv_wr = capacity.max_recv_wr;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  init.cap.max_inline_data = capacity.max_inline;
  QueuePairHandle qp(ibv_create_qp(pd, &init));
  if (!qp) {
    return ResourceExhausted(fmt::format(
        "ibv_create_qp({}, send depth {}, receive depth {}, inline {}): {}", QpTypeName(type),
        capacity.max_send_wr, capacity.max_recv_wr, capacity.max_inline, std::strerror(errno)));
  }
  return qp;
}

Status ConnectQueuePair(ibv_qp* qp, const QpPathSettings& path, const QpEndpoint& local,
                        const QpEndpoint& remote, bool to_rts) {
  XFER_RETURN_IF_ERROR(ToInit(qp, path));
  XFER_RETURN_IF_ERROR(ToRtr(qp, path, local, remote));
  if (to_rts) XFER_RETURN_IF_ERROR(ToRts(qp, path, local, remote));
  return Status::Ok();
}

Result<AddressHandle> CreateAddressHandle(ibv_pd* pd, const QpPathSettings& path,
                                          const QpEndpoint& remote) {
  ibv_ah_attr attr = AddressFor(path, remote);
  AddressHandle ah(ibv_create_ah(pd, &attr));
  if (!ah) return Internal(fmt::format("ibv_create_ah: {}", std::strerror(errno)));
  return ah;
}

uint32_t RandomPsn() {
  std::random_device entropy;
  return entropy() & 0xFFFFFFu;
}

}  // namespace xfer::verbs
