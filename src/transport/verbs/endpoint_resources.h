// Everything one verbs endpoint owns on the device, created before the peer
// is known: the device context and PD, a CQ with its completion channel,
// one RC QP per stream (still in RESET), the receive slots, and the MRs of
// the announced regions; plus the local facts the setup message carries.
//
// Member order is the teardown contract (ib_handles.h): QPs before the CQ,
// MRs before the PD, the CQ before its channel, all before the context.
#ifndef XFER_TRANSPORT_VERBS_ENDPOINT_RESOURCES_H_
#define XFER_TRANSPORT_VERBS_ENDPOINT_RESOURCES_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "transport/transport.h"
#include "transport/verbs/local_registrations.h"
#include "transport/verbs/notification_outbox.h"
#include "transport/verbs/receive_slots.h"
#include "transport/verbs/setup_message.h"
#include "transport/verbs/verbs_transport_options.h"
#include "verbs/device_context.h"
#include "verbs/ib_handles.h"
#include "verbs/queue_pair.h"
#include "xfer/device_registration.h"
#include "xfer/status.h"

namespace xfer::transport::verbs {

struct EndpointResources {
  explicit EndpointResources(::xfer::verbs::DeviceContext opened) : device(std::move(opened)) {}
  EndpointResources(const EndpointResources&) = delete;
  EndpointResources& operator=(const EndpointResources&) = delete;

  ::xfer::verbs::DeviceContext device;  // context + PD: released last
  ::xfer::verbs::CompletionChannelHandle channel;
  ::xfer::verbs::CompletionQueueHandle cq;  // every QP's sends and receives
  std::unique_ptr<LocalRegistrations> registrations;
  std::unique_ptr<ReceiveSlots> slots;
  std::unique_ptr<NotificationOutbox> outbox;
  std::vector<::xfer::verbs::QueuePairHandle> qps;  // one per stream

  // This side's half of the path; mtu is this port's active MTU (or the
  // override) until the setup exchange settles it.
  ::xfer::verbs::QpPathSettings path;
  std::vector<::xfer::verbs::QpEndpoint> local_qps;  // lid, qpn, psn, out_reads, gid
  WireLinkLayer link_layer = WireLinkLayer::kUnspecified;
  uint32_t send_depth = 1;     // per QP, within the device's limits
  uint32_t send_backlog = 1;   // per QP: options.send_backlog
  uint64_t max_wr_bytes = 0;      // options.max_wr_bytes capped by max_msg_sz
  uint64_t min_stripe_bytes = 0;  // options.min_stripe_bytes, <= max_wr_bytes
  DeviceRegistration registration;  // of setup.announced, in CreateEndpointResources
};

// Opens the device, chooses the GID (ChooseGid, preferring the control
// socket's local IPv4 address) and creates everything above for
// setup.streams streams, registering setup.announced. Errors:
// kFailedPrecondition (no device, port not ACTIVE, no usable GID),
// kNotFound (no such device or port), kInvalidArgument (bad GID index, MTU
// override, stream count or queue settings), kResourceExhausted (CQ/QP/MR creation; RLIMIT_MEMLOCK),
// kInternal.
Result<std::unique_ptr<EndpointResources>> CreateEndpointResources(
    const VerbsTransportOptions& options, const EndpointSetup& setup);

// This side's setup message.
SetupMessage DescribeEndpoint(const EndpointResources& resources);

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_ENDPOINT_RESOURCES_H_
