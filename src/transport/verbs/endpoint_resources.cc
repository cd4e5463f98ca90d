#include "transport/verbs/endpoint_resources.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>

#include "transport/verbs/striping.h"
#include "verbs/gid_selection.h"
#include "verbs/mtu.h"

namespace xfer::transport::verbs {
namespace {

namespace ibv = ::xfer::verbs;

// Notifications one connection may have in flight (NotificationOutbox):
// 128 KiB of registered memory per connection.
constexpr uint32_t kNotificationsInFlight = 32;

// The local IPv4 address of the control connection, when it is one: the
// GID carrying that address is the one the peer evidently reaches us on.
std::optional<std::array<uint8_t, 4>> ControlIpv4(const Socket* control) {
  if (control == nullptr || !control->valid()) return std::nullopt;
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (getsockname(control->fd(), reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      address.ss_family != AF_INET) {
    return std::nullopt;
  }
  std::array<uint8_t, 4> ipv4{};
  std::memcpy(ipv4.data(), &reinterpret_cast<const sockaddr_in*>(&address)->sin_addr, 4);
  return ipv4;
}

WireLinkLayer ToWire(ibv::LinkLayer layer) {
  switch (layer) {
    case ibv::LinkLayer::kInfiniBand: return WireLinkLayer::kInfiniBand;
    case ibv::LinkLayer::kEthernet: return WireLinkLayer::kEthernet;
    case ibv::LinkLayer::kUnspecified: break;
  }
  return WireLinkLayer::kUnspecified;
}

Result<ibv::CompletionQueueHandle> CreateCqOnChannel(ibv_context* context, int entries,
                                                     ibv_comp_channel* channel) {
  ibv::CompletionQueueHandle cq(ibv_create_cq(context, entries, nullptr, channel, 0));
  if (!cq) {
    return ResourceExhausted(
        fmt::format("verbs: ibv_create_cq({} entries): {}", entries, std::strerror(errno)));
  }
  return cq;
}

Result<uint64_t> MaxMessageBytes(const ibv::DeviceContext& device) {
  ibv_port_attr attr{};
  if (int rc = ibv_query_port(device.context(), device.port_number(), &attr); rc != 0) {
    return Internal(fmt::format("verbs: ibv_query_port({} port {}): {}", device.name(),
                                device.port_number(), std::strerror(rc)));
  }
  return uint64_t{attr.max_msg_sz};
}

// Path settings and local QP facts that depend on the port only.
Status ChoosePath(const VerbsTransportOptions& options, const EndpointSetup& setup,
                  EndpointResources& r) {
  const ibv::PortInfo& port = r.device.port();
  // A queue pair on a port that is down connects, then fails its first
  // work request: refused here, so that a rail set up again (failover)
  // waits for its link instead of coming back only to fail.
  if (port.state != IBV_PORT_ACTIVE) {
    return FailedPrecondition(fmt::format("verbs: {} port {} is {}, not active (its link is down)",
                                          r.device.name(), r.device.port_number(),
                                          port.StateName()));
  }
  ibv::GidPreference preference;
  preference.local_ipv4 = ControlIpv4(setup.control);
  auto gid = ibv::ChooseGid(r.device.name(), port, options.device.gid_index, preference);
  if (!gid.ok()) return gid.status().WithContext("verbs");
  r.path.type = ibv::QpType::kRC;
  r.path.port = r.device.port_number();
  r.path.gid_index = gid->has_value() ? (*gid)->index : -1;
  r.path.mtu = port.active_mtu;
  if (options.mtu_bytes) {
    auto mtu = ibv::MtuFromBytes(*options.mtu_bytes);
    if (!mtu) {
      return InvalidArgument(fmt::format(
          "verbs: MTU {} is not one of 256, 512, 1024, 2048, 4096", *options.mtu_bytes));
    }
    r.path.mtu = *mtu;
  }
  r.path.timeout = options.qp_timeout;
  r.path.access_flags =
      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
  r.path.max_init_rd_atomic =
      static_cast<uint32_t>(std::max(r.device.info().max_qp_init_rd_atom, 1));
  r.link_layer = ToWire(port.link_layer);
  ibv::QpEndpoint local;
  local.lid = port.lid;
  local.out_reads = static_cast<uint32_t>(std::max(r.device.info().max_qp_rd_atom, 1));
  if (gid->has_value()) local.gid = (*gid)->raw;
  r.local_qps.assign(setup.streams, local);
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<EndpointResources>> CreateEndpointResources(
    const VerbsTransportOptions& options, const EndpointSetup& setup) {
  if (setup.streams == 0 || setup.streams > kMaxStreams) {
    return InvalidArgument(fmt::format("verbs: {} streams (1..{})", setup.streams, kMaxStreams));
  }
  if (options.send_depth == 0 || options.recv_slots == 0 || options.recv_slots > kMaxRecvSlots ||
      options.recv_slot_bytes < kMinRecvSlotBytes || options.recv_slot_bytes > kMaxRecvSlotBytes) {
    return InvalidArgument(fmt::format(
        "verbs: bad queue settings (send depth {}, {} receive buffers of {} bytes)",
        options.send_depth, options.recv_slots, options.recv_slot_bytes));
  }
  auto device = ibv::DeviceContext::Open(options.device.device, options.device.port);
  if (!device.ok()) return device.status().WithContext("verbs");
  auto r = std::make_unique<EndpointResources>(std::move(device.value()));
  XFER_RETURN_IF_ERROR(ChoosePath(options, setup, *r));
  const ibv::DeviceInfo& info = r->device.info();

  // WR sizes: page multiples within the port's max_msg_sz (8 MiB on rxe).
  auto max_msg = MaxMessageBytes(r->device);
  if (!max_msg.ok()) return max_msg.status();
  r->max_wr_bytes = std::min(options.max_wr_bytes, *max_msg) / kPieceAlignment * kPieceAlignment;
  r->max_wr_bytes = std::max(r->max_wr_bytes, kPieceAlignment);
  r->min_stripe_bytes = std::clamp(options.min_stripe_bytes / kPieceAlignment * kPieceAlignment,
                                   kPieceAlignment, r->max_wr_bytes);

  // Depths within the device's limits; the CQ holds every completion the
  // QPs can have outstanding: sends, receive slots, and the setup probes.
  const uint32_t max_wr = static_cast<uint32_t>(std::max(info.max_qp_wr, 1));
  const uint32_t slots = std::min(options.recv_slots, max_wr);
  r->send_depth = std::min(options.send_depth, max_wr);
  r->send_backlog = std::max<uint32_t>(options.send_backlog, 1);
  const uint64_t max_cqe = static_cast<uint64_t>(std::max(info.max_cqe, 1));
  const uint64_t per_qp_cap = max_cqe / setup.streams;
  if (per_qp_cap < uint64_t{slots} + 2) {
    return ResourceExhausted(fmt::format(
        "verbs: {} streams need more completion-queue entries than {} offers ({})",
        setup.streams, r->device.name(), max_cqe));
  }
  r->send_depth = static_cast<uint32_t>(
      std::min<uint64_t>(r->send_depth, per_qp_cap - slots - 1));
  const uint64_t cq_entries = uint64_t{setup.streams} * (r->send_depth + slots + 1);

  r->channel.reset(ibv_create_comp_channel(r->device.context()));
  if (!r->channel) {
    return ResourceExhausted(
        fmt::format("verbs: ibv_create_comp_channel: {}", std::strerror(errno)));
  }
  auto cq = CreateCqOnChannel(r->device.context(), static_cast<int>(cq_entries),
                              r->channel.get());
  if (!cq.ok()) return cq.status();
  r->cq = std::move(cq.value());

  r->registrations = std::make_unique<LocalRegistrations>(r->device.pd(), setup.local,
                                                           options.registration_piece_bytes);
  const auto registering = std::chrono::steady_clock::now();
  XFER_RETURN_IF_ERROR(r->registrations->RegisterAll(setup.announced));
  r->registration.duration = std::chrono::steady_clock::now() - registering;
  const std::vector<RegionKey> keys = r->registrations->Keys();
  if (keys.size() > kMaxSetupKeys) {
    return InvalidArgument(fmt::format(
        "verbs: the announced regions need {} memory registrations in pieces of {} bytes, more "
        "than the {} a setup message carries: raise registration_piece",
        keys.size(), options.registration_piece_bytes, kMaxSetupKeys));
  }
  r->registration.memory_registrations = static_cast<uint32_t>(keys.size());
  for (const RegionKey& key : keys) r->registration.bytes += key.length;
  auto receive_slots =
      ReceiveSlots::Create(r->device.pd(), setup.streams, slots, options.recv_slot_bytes);
  if (!receive_slots.ok()) return receive_slots.status();
  r->slots = std::move(receive_slots.value());
  auto outbox = NotificationOutbox::Create(r->device.pd(), kNotificationsInFlight);
  if (!outbox.ok()) return outbox.status();
  r->outbox = std::move(outbox.value());

  ibv::QpCapacity capacity;
  capacity.max_send_wr = r->send_depth;
  capacity.max_recv_wr = slots;
  for (uint32_t i = 0; i < setup.streams; ++i) {
    auto qp = ibv::CreateQueuePair(r->device.pd(), r->cq.get(), r->cq.get(), ibv::QpType::kRC,
                                   capacity);
    if (!qp.ok()) return qp.status().WithContext("verbs");
    r->local_qps[i].qpn = (*qp)->qp_num;
    r->local_qps[i].psn = ibv::RandomPsn();
    r->qps.push_back(std::move(qp.value()));
  }
  return r;
}

SetupMessage DescribeEndpoint(const EndpointResources& r) {
  SetupMessage m;
  m.link_layer = r.link_layer;
  m.mtu = static_cast<uint8_t>(r.path.mtu);
  m.has_gid = r.path.gid_index >= 0;
  m.recv_slot_bytes = r.slots->slot_bytes();
  m.recv_slots = r.slots->slots_per_qp();
  m.qps = r.local_qps;
  m.keys = r.registrations->Keys();
  return m;
}

}  // namespace xfer::transport::verbs
