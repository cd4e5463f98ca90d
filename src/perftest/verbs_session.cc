#include "perftest/verbs_session.h"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "cuda/device_choice.h"
#include "perftest/negotiation.h"
#include "perftest/stock_parameters.h"
#include "perftest/wire_format.h"
#include "verbs/gid_selection.h"
#include "verbs/memory_resources.h"
#include "verbs/mtu.h"

namespace xfer::perftest {
namespace {

using bench::Verb;

// The largest cycle buffer or cache line a sane peer reports (a 64 KiB-page
// machine has a 65536-byte cycle buffer); more is a hostile or broken peer.
constexpr int32_t kMaxCycleBuffer = 1 << 24;
constexpr int32_t kMaxCacheLine = 4096;
// UD receive buffers hold the 40-byte GRH before the payload.

bool IsReadLike(Verb verb) { return verb == Verb::kRead || verb == Verb::kAtomic; }

int32_t CacheLineSize() {
  const long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
  return line > 0 ? static_cast<int32_t>(line) : 64;
}

// perftest's rule: exactly one side on an IPv4-mapped GID cannot work.
bool Ipv4Mapped(const std::optional<std::array<uint8_t, 16>>& gid) {
  if (!gid) return false;
  static constexpr uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(gid->data(), kPrefix, sizeof(kPrefix)) == 0;
}

double BwInUnits(double bytes_per_s, bench::BwUnits units) {
  return units == bench::BwUnits::kGbps ? bytes_per_s / 125e6 : bytes_per_s / 1048576.0;
}

double BwFromUnits(double value, bench::BwUnits units) {
  return units == bench::BwUnits::kGbps ? value * 125e6 : value * 1048576.0;
}

}  // namespace

VerbsSession::VerbsSession(const bench::BenchParams& params,
                           const bench::EffectiveSettings& settings, verbs::DeviceContext device,
                           OobLink link)
    : params_(params), settings_(settings), device_(std::move(device)), link_(std::move(link)) {}

verbs::QpType VerbsSession::qp_type() const {
  switch (params_.verbs.connection) {
    case bench::Connection::kUC: return verbs::QpType::kUC;
    case bench::Connection::kUD: return verbs::QpType::kUD;
    case bench::Connection::kRC: break;
  }
  return verbs::QpType::kRC;
}

Result<std::unique_ptr<VerbsSession>> VerbsSession::Open(const bench::BenchParams& params,
                                                         const bench::EffectiveSettings& settings,
                                                         OobLink link) {
  auto device = verbs::DeviceContext::Open(params.verbs.device, params.verbs.ib_port);
  if (!device.ok()) return device.status();
  std::unique_ptr<VerbsSession> session(
      new VerbsSession(params, settings, std::move(*device), std::move(link)));
  XFER_RETURN_IF_ERROR(session->ChooseGid());
  XFER_RETURN_IF_ERROR(session->RunPrologue());
  return session;
}

Status VerbsSession::ChooseGid() {
  verbs::GidPreference preference;
  preference.prefer_ipv6 = params_.verbs.prefer_ipv6;
  preference.local_ipv4 = link_.LocalIpv4();
  auto gid = verbs::ChooseGid(device_.name(), device_.port(), params_.verbs.gid_index, preference);
  if (!gid.ok()) return gid.status();
  if (*gid) {
    gid_index_ = (*gid)->index;
    gid_ = (*gid)->raw;
  }
  return Status::Ok();
}

Status VerbsSession::RunPrologue() {
  auto version = link_.Exchange(EncodeVersion(kAdvertisedVersion), kVersionSize, "version");
  if (!version.ok()) return version.status();
  auto peer = DecodeVersion(*version);
  if (!peer.ok()) return peer.status();
  agreed_.peer_version = peer->text;
  agreed_.peer_version_number = peer->number;
  if (peer->number < kOldestCompatibleVersion) {
    return NotSupported(fmt::format(
        "the peer speaks perftest {}, older than 5.70, which perftest itself refuses", peer->text));
  }
  if (peer->number >= 5.32) XFER_RETURN_IF_ERROR(ExchangeSystemData());
  if (peer->number >= 5.1) XFER_RETURN_IF_ERROR(ExchangeMtu());
  agreed_.max_size = StockMaxMessageSize(params_, verbs::MtuBytes(agreed_.mtu));
  if (peer->number >= kNegotiationVersion) XFER_RETURN_IF_ERROR(Negotiate());
  const ibv_device_attr& attr = device_.info().raw_attr;
  uint32_t out_reads = 1;
  if (IsReadLike(params_.verb)) {
    const auto device_max = static_cast<uint32_t>(std::max(attr.max_qp_rd_atom, 1));
    const uint32_t asked = params_.verbs.out_reads.value_or(0);
    out_reads = asked == 0 ? device_max : std::min(asked, device_max);
    if (agreed_.negotiated) out_reads = std::min(out_reads, agreed_.out_reads);
  }
  agreed_.out_reads = out_reads;
  return Status::Ok();
}

Status VerbsSession::ExchangeSystemData() {
  const auto page = static_cast<int32_t>(sysconf(_SC_PAGESIZE));
  auto cycle = link_.Exchange(EncodeInt32(page), 4, "system data (cycle buffer)");
  if (!cycle.ok()) return cycle.status();
  auto line = link_.Exchange(EncodeInt32(CacheLineSize()), 4, "system data (cache line)");
  if (!line.ok()) return line.status();
  auto peer_cycle = DecodeInt32(*cycle);
  auto peer_line = DecodeInt32(*line);
  if (!peer_cycle.ok()) return peer_cycle.status();
  if (!peer_line.ok()) return peer_line.status();
  if (*peer_cycle <= 0 || *peer_cycle > kMaxCycleBuffer || *peer_line <= 0 ||
      *peer_line > kMaxCacheLine) {
    return ProtocolError(fmt::format(
        "the peer's system data is not plausible (cycle buffer {}, cache line {})", *peer_cycle,
        *peer_line));
  }
  agreed_.cycle_buffer = static_cast<uint32_t>(std::max(page, *peer_cycle));
  agreed_.cache_line = static_cast<uint32_t>(std::max(CacheLineSize(), *peer_line));
  return Status::Ok();
}

Status VerbsSession::ExchangeMtu() {
  ibv_mtu local = device_.port().active_mtu;
  if (params_.verbs.mtu) {
    auto forced = verbs::MtuFromBytes(*params_.verbs.mtu);
    if (!forced) return InvalidArgument(fmt::format("-m/--mtu {}: not an IB MTU", *params_.verbs.mtu));
    if (*forced > device_.port().max_mtu) {
      return InvalidArgument(fmt::format("-m/--mtu {}: port {} of {} supports at most {}",
                                         *params_.verbs.mtu, device_.port_number(), device_.name(),
                                         verbs::MtuBytes(device_.port().max_mtu)));
    }
    local = *forced;
  }
  const size_t size = MtuMessageSize(agreed_.peer_version_number);
  auto reply = link_.Exchange(EncodeMtu(static_cast<int>(local), size), size, "MTU");
  if (!reply.ok()) return reply.status();
  auto remote = DecodeMtu(*reply);
  if (!remote.ok()) return remote.status();
  agreed_.mtu = local;
  if (*remote >= IBV_MTU_256 && *remote <= IBV_MTU_4096) {
    agreed_.mtu = std::min(local, static_cast<ibv_mtu>(*remote));
  }
  return Status::Ok();
}

Status VerbsSession::Negotiate() {
  const NegotiatedParams local =
      StockNegotiation(params_, agreed_.max_size, device_.info().raw_attr);
  auto reply = link_.Exchange(EncodeNegotiation(local), kNegotiationSize, "negotiation");
  if (!reply.ok()) return reply.status();
  auto remote = DecodeNegotiation(*reply);
  if (!remote.ok()) return remote.status();
  XFER_RETURN_IF_ERROR(CompareNegotiation(local, *remote));
  agreed_.negotiated = true;
  agreed_.out_reads = static_cast<uint32_t>(std::max(remote->device_attr.max_qp_rd_atom, 1));
  return Status::Ok();
}

Result<TestBuffer> VerbsSession::AllocateBuffer(uint64_t slot_size) {
  if (!params_.cuda_device && params_.cuda_bus_id.empty()) {
    return TestBuffer::Allocate(params_.qps, slot_size, params_.use_hugepages);
  }
  const char* flag = params_.cuda_device ? "--use_cuda" : "--use_cuda_bus_id";
  auto ordinal = cuda::ChooseDevice(params_.cuda_device, params_.cuda_bus_id, flag);
  if (!ordinal.ok()) return ordinal.status();
  devices_ = cuda::DeviceRuntime::Create();
  return TestBuffer::AllocateDevice(*devices_, *ordinal, params_.qps, slot_size);
}

Status VerbsSession::RegisterBuffer(int access) {
  if (!buffer_->on_device()) {
    auto mr = verbs::RegisterMemoryRegion(device_.pd(), buffer_->data(), buffer_->length(), access);
    if (!mr.ok()) return mr.status();
    mr_ = std::move(*mr);
    return Status::Ok();
  }
  if (params_.cuda_dmabuf) {
    auto dmabuf = devices_->ExportDmaBuf(buffer_->data(), buffer_->length());
    if (!dmabuf.ok()) return dmabuf.status().WithContext("--use_cuda_dmabuf");
    // The buffer's device address is its address on the wire too, as
    // perftest's: the peer's RDMA targets it.
    auto mr = verbs::RegisterDmaBufRegion(device_.pd(), dmabuf->fd(), dmabuf->offset(),
                                          buffer_->length(),
                                          reinterpret_cast<uint64_t>(buffer_->data()), access);
    if (!mr.ok()) return mr.status().WithContext("--use_cuda_dmabuf");
    mr_ = std::move(*mr);
    return Status::Ok();
  }
  auto mr = verbs::RegisterMemoryRegion(device_.pd(), buffer_->data(), buffer_->length(), access);
  if (!mr.ok()) {
    return FailedPrecondition(fmt::format(
        "--use_cuda: the NIC cannot register CUDA device memory by its address ({}); that "
        "needs the nvidia-peermem module (modprobe nvidia-peermem), or use --use_cuda_dmabuf",
        mr.status().message()));
  }
  mr_ = std::move(*mr);
  return Status::Ok();
}

Status VerbsSession::CreateResources(uint64_t max_size) {
  const verbs::QpType type = qp_type();
  const uint64_t mtu_bytes = verbs::MtuBytes(agreed_.mtu);
  if (type == verbs::QpType::kUD && max_size > mtu_bytes) {
    return InvalidArgument(fmt::format(
        "-s/--size {}: a UD message must fit the MTU ({} bytes on this path)", max_size, mtu_bytes));
  }
  const uint64_t slot_payload = max_size + (type == verbs::QpType::kUD ? kGrhBytes : 0);
  auto buffer = AllocateBuffer(SlotSize(slot_payload, agreed_.cycle_buffer));
  if (!buffer.ok()) return buffer.status();
  buffer_ = std::move(*buffer);
  const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                     IBV_ACCESS_REMOTE_ATOMIC;
  XFER_RETURN_IF_ERROR(RegisterBuffer(access));

  const bool receives = params_.verb == Verb::kSend;
  const uint32_t rx_depth = receives ? std::max<uint32_t>(settings_.rx_depth, 1) : 1;
  const uint32_t tx_depth = std::max<uint32_t>(settings_.tx_depth, 1);
  auto send_cq = verbs::CreateCompletionQueue(device_.context(),
                                              static_cast<int>(tx_depth * params_.qps));
  if (!send_cq.ok()) return send_cq.status();
  send_cq_ = std::move(*send_cq);
  auto recv_cq = verbs::CreateCompletionQueue(device_.context(),
                                              static_cast<int>(rx_depth * params_.qps));
  if (!recv_cq.ok()) return recv_cq.status();
  recv_cq_ = std::move(*recv_cq);

  // Inline data is read by the CPU at post time: never from device memory.
  max_inline_ = IsReadLike(params_.verb) || buffer_->on_device()
                    ? 0
                    : params_.verbs.inline_size.value_or(0);
  const verbs::QpCapacity capacity{tx_depth, rx_depth, max_inline_};
  for (uint32_t i = 0; i < params_.qps; ++i) {
    auto qp = verbs::CreateQueuePair(device_.pd(), send_cq_.get(), recv_cq_.get(), type, capacity);
    if (!qp.ok()) return qp.status();
    bench::QpAddress address;
    address.lid = device_.port().lid;
    address.out_reads = agreed_.out_reads;
    address.qpn = (*qp)->qp_num;
    address.psn = verbs::RandomPsn();
    address.rkey = mr_->rkey;
    address.vaddr = reinterpret_cast<uintptr_t>(buffer_->ReceiveSlot(i));
    address.gid = gid_;
    local_.push_back(address);
    qps_.push_back(std::move(*qp));
  }
  return Status::Ok();
}

size_t VerbsSession::KeyMessageSize() const {
  return gid_ ? kKeyMessageGidSize : kKeyMessageSize;
}

Result<bench::QpAddress> VerbsSession::ExchangeKey(const bench::QpAddress& mine,
                                                   bool after_peer_run, std::string_view what) {
  const std::vector<uint8_t> out = EncodeKeyMessage(mine);
  // The first keys follow the peer's registration of its buffers.
  auto reply = after_peer_run ? link_.ExchangeAfterPeerRun(out, KeyMessageSize(), what)
                              : link_.ExchangeAfterPeerSetup(out, KeyMessageSize(), what);
  if (!reply.ok()) return reply.status();
  return DecodeKeyMessage(*reply, gid_.has_value());
}

Status VerbsSession::ExchangeKeys() {
  remote_.clear();
  for (uint32_t i = 0; i < params_.qps; ++i) {
    auto remote = ExchangeKey(local_[i], false, "key");
    if (!remote.ok()) return remote.status();
    remote_.push_back(*remote);
  }
  return Status::Ok();
}

Status VerbsSession::Barrier(std::string_view what) {
  auto reply = ExchangeKey(local_[0], false, what);
  return reply.ok() ? Status::Ok() : reply.status();
}

Status VerbsSession::BarrierAfterPeerRun(std::string_view what) {
  auto reply = ExchangeKey(local_[0], true, what);
  return reply.ok() ? Status::Ok() : reply.status();
}

Status VerbsSession::BarrierEachQp() {
  for (uint32_t i = 0; i < params_.qps; ++i) {
    auto reply = ExchangeKey(local_[i], false, "key");
    if (!reply.ok()) return reply.status();
  }
  return Status::Ok();
}

Status VerbsSession::Close() { return Barrier("close"); }

Status VerbsSession::ConnectQueuePairs(bool to_rts) {
  if (Ipv4Mapped(local_[0].gid) != Ipv4Mapped(remote_[0].gid)) {
    return FailedPrecondition(
        "Found Incompatibility issue with GID types: one side uses an IPv4-mapped GID and the "
        "other does not; choose matching GIDs with -x");
  }
  verbs::QpPathSettings path;
  path.type = qp_type();
  path.port = device_.port_number();
  path.gid_index = gid_index_;
  path.mtu = agreed_.mtu;
  path.sl = params_.verbs.sl;
  path.timeout = params_.verbs.qp_timeout;
  path.traffic_class = params_.verbs.traffic_class;
  path.pkey_index = params_.verbs.pkey_index;
  path.access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                      IBV_ACCESS_REMOTE_ATOMIC;
  path.max_init_rd_atomic =
      static_cast<uint32_t>(std::max(device_.info().raw_attr.max_qp_init_rd_atom, 1));
  for (uint32_t i = 0; i < params_.qps; ++i) {
    verbs::QpEndpoint local{local_[i].lid, local_[i].qpn, local_[i].psn, local_[i].out_reads,
                            local_[i].gid};
    verbs::QpEndpoint remote{remote_[i].lid, remote_[i].qpn, remote_[i].psn,
                             std::max<uint32_t>(remote_[i].out_reads, 1), remote_[i].gid};
    if (Status s = verbs::ConnectQueuePair(qps_[i].get(), path, local, remote, to_rts); !s.ok()) {
      return s.WithContext(fmt::format("QP {} (QPN {:#x})", i, local.qpn));
    }
    if (path.type == verbs::QpType::kUD) {
      auto ah = verbs::CreateAddressHandle(device_.pd(), path, remote);
      if (!ah.ok()) return ah.status();
      ahs_.push_back(std::move(*ah));
    }
  }
  return Status::Ok();
}

Result<bench::BwResult> VerbsSession::ExchangeBwReport(const bench::BwResult& local,
                                                       bool after_peer_run) {
  const bench::BwUnits units = params_.units;
  const std::array<std::array<uint8_t, 8>, 5> fields = {
      EncodeU64(local.size), EncodeU64(local.iterations),
      EncodeDouble(BwInUnits(local.peak_bytes_per_s, units)),
      EncodeDouble(BwInUnits(local.avg_bytes_per_s, units)), EncodeDouble(local.msg_rate_mpps)};
  std::array<std::vector<uint8_t>, 5> replies;
  for (size_t i = 0; i < fields.size(); ++i) {
    auto reply = (i == 0 && after_peer_run) ? link_.ExchangeAfterPeerRun(fields[i], 8, "report")
                                            : link_.Exchange(fields[i], 8, "report");
    if (!reply.ok()) return reply.status();
    replies[i] = std::move(*reply);
  }
  auto size = DecodeU64(replies[0]);
  auto iterations = DecodeU64(replies[1]);
  auto peak = DecodeDouble(replies[2]);
  auto avg = DecodeDouble(replies[3]);
  auto rate = DecodeDouble(replies[4]);
  if (!size.ok() || !iterations.ok() || !peak.ok() || !avg.ok() || !rate.ok()) {
    return ProtocolError("the peer's bandwidth report does not parse");
  }
  bench::BwResult remote;
  remote.size = *size;
  remote.iterations = *iterations;
  remote.peak_bytes_per_s = BwFromUnits(*peak, units);
  remote.avg_bytes_per_s = BwFromUnits(*avg, units);
  remote.msg_rate_mpps = *rate;
  return remote;
}

bench::VerbsRunInfo VerbsSession::RunInfo() const {
  bench::VerbsRunInfo info;
  info.device = device_.name();
  info.ib_port = params_.verbs.ib_port;
  info.transport_type = device_.info().transport == "iWARP" ? "IW" : "IB";
  info.connection = std::string(verbs::QpTypeName(qp_type()));
  info.mtu_bytes = verbs::MtuBytes(agreed_.mtu);
  info.link_type =
      device_.port().link_layer == verbs::LinkLayer::kInfiniBand ? "IB" : "Ethernet";
  info.gid_index = gid_index_;
  info.shows_out_reads = IsReadLike(params_.verb);
  info.max_inline = max_inline_;
  info.out_reads = agreed_.out_reads;
  info.local = local_;
  info.remote = remote_;
  return info;
}

}  // namespace xfer::perftest
