// The one small interface every transport implements. The engine validates
// arguments, picks a transport by capability, hands it a connected control
// channel to bootstrap an Endpoint, and from then on only posts work.
#ifndef XFER_TRANSPORT_TRANSPORT_H_
#define XFER_TRANSPORT_TRANSPORT_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/socket.h"
#include "cuda/device_runtime.h"
#include "transport/local_memory.h"
#include "transport/notification_sink.h"
#include "transport/remote_memory.h"
#include "xfer/data_mover.h"
#include "xfer/device_registration.h"
#include "xfer/nic_port.h"
#include "xfer/status.h"
#include "xfer/transfer.h"

namespace xfer::transport {

constexpr uint32_t MemoryKindBit(MemoryKind kind) { return 1u << static_cast<uint32_t>(kind); }

// What a transport can do, as data: the engine chooses and checks by these,
// never by name.
struct Capabilities {
  // PostWrite / PostRead; without it the engine refuses Submit on the
  // connection with kNotSupported.
  bool one_sided = false;
  // PostSend / PostRecv; likewise for Engine::PostSend / PostRecv.
  bool two_sided = false;
  // PostNotify; likewise for Engine::Notify and a request's notification.
  bool notifications = false;
  bool same_host_only = false;  // only between processes of one host
  // What moves one-sided transfers' bytes (xfer/engine.h): what a
  // benchmark compares this transport's bandwidth with.
  DataMover data_mover = DataMover::kKernel;
  // The memory kinds moved one-sided, on either side (MemoryKindBit of
  // each). The engine refuses a transfer touching another kind before
  // posting it, naming the transport; no transport may touch device memory
  // as if it were host memory.
  uint32_t memory_kinds = MemoryKindBit(MemoryKind::kHost) | MemoryKindBit(MemoryKind::kHugepage);
  // How it moves device memory, for results to name ("CUDA IPC"); empty
  // when it does not.
  std::string_view device_path;
  // The most entries one PostWrite / PostRead takes. The engine refuses a
  // longer batch with kInvalidArgument; callers with more split them over
  // several requests (PeerInfo::max_entries_per_post).
  uint32_t max_entries_per_post = 1;
  // A post of at most this many bytes, from host memory, has read its
  // source before the Post call returns, so the caller may reuse the
  // buffer at once; a longer one, and any from device memory (its copies
  // are queued), reads it until the request completes.
  uint64_t max_inline_bytes = 0;
  // Set by a transport whose posts move host bytes on the caller's thread
  // (shm: memcpy into the peer's mapping): a one-sided request of this many
  // bytes or more, the engine moves on the connection's own thread instead
  // (core/staging_pipeline.h), in posts of at most
  // StagingPipeline::kChunkBytes, so that Submit returns at once, the
  // caller's work overlaps the copy, and a deadline or Engine::Cancel stops
  // it between posts without closing the connection. 0: posts return before
  // the bytes move (tcp, verbs), and nothing is handed over.
  uint64_t offload_from_bytes = 0;
  uint32_t max_streams = 1;     // upper bound for ConnectOptions::streams
  // The rails (paths between the two engines: a pair of devices, a pair of
  // addresses) one connection may be striped over (core/striped_endpoint.h);
  // 1 where there is one path only (shm: one host's memory).
  uint32_t max_rails = 1;
  // The code a transfer into a region the peer has revoked ends with:
  // kOutOfRange where the transport checks the peer's region table itself
  // (shm, tcp), kPermissionDenied where the peer's NIC refuses the stale
  // key (verbs: IBV_WC_REM_ACCESS_ERR).
  StatusCode revoked_region_code = StatusCode::kOutOfRange;
  // Whether a request the peer refuses (a revoked region, a range its NIC
  // denies) leaves the connection failed, so that every later request on
  // it fails with kConnectionLost: true on verbs, whose queue pair enters
  // the error state; shm and tcp refuse the one request and carry on.
  bool refusal_fails_connection = false;
  // Preference among transports both peers allow; higher wins when the
  // caller forces none (shm beats tcp on one host).
  int preference = 0;

  bool Carries(MemoryKind kind) const { return (memory_kinds & MemoryKindBit(kind)) != 0; }
};

// Everything a transport needs to set up one connection. The control socket
// is connected and the engines' handshake is done; the transport may
// exchange its own messages on it (both sides run CreateEndpoint at the same
// time, `initiator` tells them apart) and must leave it open and idle.
struct EndpointSetup {
  bool initiator = false;           // this side called Engine::Connect
  uint32_t streams = 1;             // already clamped to max_streams
  Socket* control = nullptr;        // the engines' control connection
  std::string peer_host;            // numeric address of the peer
  int peer_pid = 0;
  const LocalMemory* local = nullptr;   // outlives the endpoint
  // Exactly the local regions this side's handshake announced to the peer
  // (the registry may have changed since). fds stay owned by the engine.
  std::vector<LocalRegionView> announced;
  RemoteMemory remote;              // the peer's regions
  std::chrono::milliseconds io_timeout{10000};
  Deadline deadline = Deadline::Never();  // for the whole setup
  // The engine's CUDA runtime, for transports that move device memory;
  // outlives the endpoint. Never null when the engine sets up a connection.
  cuda::DeviceRuntime* devices = nullptr;
  // Where the peer's notifications go; outlives the endpoint. Never null
  // when the engine sets up a connection.
  NotificationSink* notifications = nullptr;
  // The rail this endpoint runs over (RailCandidate::name of this side's
  // and of the peer's); empty: the transport's own choice, as without
  // rails.
  std::string local_rail;
  std::string remote_rail;
  // One rail among several, whose work the engine moves to the others when
  // it fails: fail the endpoint (kConnectionLost) as soon as the host
  // announces its link down (tcp: netlink), rather than when the silence
  // runs out. False for a connection's only path, which a short flap that
  // tcp rides out must not end.
  bool fail_on_link_down = false;
};

// One end a rail can have on this host (Transport::RailCandidates).
struct RailCandidate {
  std::string name;     // what EndpointSetup::local_rail names: an address, a device
  // Two ends pair only within one network (tcp: "10.0.1.0/24"); empty for
  // any (verbs devices on one fabric).
  std::string network;
  double bytes_per_sec = 0;  // the link's rate; 0 when unknown
};

// The hot path's rules, for every transport's post and completion paths
// (UCX's rule; ../shared/reference/style.md, section 2). In the common case
// -- a batch of a few dozen entries, a queue with room, a live peer -- a
// Post* call and the completion of its request:
//   1. allocate nothing: scratch lives on the stack or in storage reused
//      from earlier posts (FifoRing, std::pmr over a stack arena);
//   2. take no mutex that another connection's posts or the engine's
//      control path contend for (a per-stream lock, uncontended when each
//      thread owns its stream, is the most a transport may take);
//   3. make no atomic read-modify-write on a cache line another thread
//      writes in the common case (a per-endpoint admission counter the
//      posting thread alone touches is fine; a shared refcount is not);
//   4. make no system call, except where the transport is a system call
//      (tcp's send and recv) -- and then nothing else;
//   5. never block: a full queue refuses the whole request with
//      kResourceExhausted before arming it, and the caller retries;
//   6. build error messages (fmt, strings) only on the error path.
// Errors are cold; a transport may be slow to report one, never to post.

// A transport's own resolution of a prepared list (Engine::
// PrepareTransfers): what its posts would otherwise look up per entry
// (shm: the peer mapping's address and revocation slot of each remote
// range). Owned by the list; used only with the endpoint that made it.
class PreparedBatch {
 public:
  virtual ~PreparedBatch() = default;
};

// Which entries of a prepared list one submission takes: [first, first +
// count) when `indices` is empty, else the entries at `indices`, in order.
// The engine has checked every index against the list.
struct PreparedSelection {
  uint32_t first = 0;
  uint32_t count = 0;
  std::span<const uint32_t> indices;

  size_t size() const { return indices.empty() ? count : indices.size(); }
  uint32_t operator[](size_t i) const {
    return indices.empty() ? first + static_cast<uint32_t>(i) : indices[i];
  }
};

// One connection to one peer.
//
// Every Post* call is made only after the engine checked what it can: the
// peer exists, `entries` is non-empty with no zero length, every local
// range lies in one registered region and every remote range in one region
// the peer announced with the access the op needs, the memory kinds are
// ones the transport Carries, the batch is at most max_entries_per_post,
// and `request` is not in flight. A transport re-checks only what it alone
// can know (its own keys and mappings, a region the peer revoked since).
//
// Completion: on OK, the transport armed `request` with
// internal::RequestAccess::Start (one part or several) and finishes every
// part exactly once, from any thread, with the part's status -- also when
// the connection fails or closes (kConnectionLost). On an error return the
// request is untouched and no byte moved.
//
// Thread-safety: Post* may be called concurrently, on the same or on
// different streams. Close() may race with them; after Close() every Post*
// fails with kConnectionLost. `stream` is already < the connection's
// stream count; requests on one stream complete in posting order, requests
// on different streams in any order.
//
// A transport without a capability keeps the default, which returns
// kNotSupported; the engine never calls it (Capabilities::one_sided,
// two_sided).
class Endpoint {
 public:
  virtual ~Endpoint() = default;

  // One-sided WRITE of every entry's [local, local+length) to [remote,
  // remote+length) in the peer's memory. An error return moved nothing.
  // The request completes when every byte is in the peer's memory (for a
  // transport whose completion comes from the peer, when the peer said
  // so), or fails with the first part's error; a failure found after
  // posting (by the target, as tcp checks each frame there, or a region
  // the peer revoked meanwhile) may leave the batch's other entries landed. Errors: kConnectionLost
  // (closed), kOutOfRange (a remote range the peer has revoked since the
  // engine's check), kResourceExhausted (queues full: retry), kInvalidArgument
  // (a batch the transport can never take, e.g. more work requests than a
  // queue holds), kNotSupported (memory this connection cannot reach, e.g.
  // a peer device region without a mapping), kIoError (the device refused
  // the post; the connection then fails).
  virtual Status PostWrite(std::span<const TransferEntry> entries, TransferRequest& request,
                           uint32_t stream) {
    (void)entries, (void)request, (void)stream;
    return NotSupported("this transport has no one-sided WRITE");
  }
  // One-sided READ: the mirror of PostWrite, filling every entry's local
  // range from its remote range; complete when every byte is in local
  // memory. Errors: as PostWrite's.
  virtual Status PostRead(std::span<const TransferEntry> entries, TransferRequest& request,
                          uint32_t stream) {
    (void)entries, (void)request, (void)stream;
    return NotSupported("this transport has no one-sided READ");
  }
  // Two-sided: sends [data, data+length) as one message on `stream`; it
  // fills the peer's oldest posted receive. Completes once the bytes left
  // `data`. Errors: kConnectionLost, kInvalidArgument (longer than the
  // transport's largest message), kResourceExhausted (retry), kIoError.
  virtual Status PostSend(const void* data, size_t length, TransferRequest& request,
                          uint32_t stream) {
    (void)data, (void)length, (void)request, (void)stream;
    return NotSupported("this transport has no send/recv");
  }
  // Two-sided: posts a buffer for the peer's next message; receives fill
  // in posting order. Completes with request.bytes() = the message's
  // length; a message longer than `capacity` fails this receive with
  // kInvalidArgument "<transport>: a N-byte message does not fit the posted
  // M-byte receive; dropped", writes nothing to `buffer`, and leaves the
  // connection and the sender's request unharmed (xfer/engine.h, PostRecv).
  // Errors: kConnectionLost.
  virtual Status PostRecv(void* buffer, size_t capacity, TransferRequest& request) {
    (void)buffer, (void)capacity, (void)request;
    return NotSupported("this transport has no send/recv");
  }

  // Resolves a list's entries once (checked by the engine as for PostWrite,
  // except the remote access, which PostPrepared's caller checks per op).
  // Null, the default: the transport has nothing worth preparing, and the
  // engine posts the selected entries with PostWrite / PostRead. Errors:
  // what PostWrite would refuse the entries for (kOutOfRange for a region
  // the peer revoked, kNotSupported), kConnectionLost.
  virtual Result<std::unique_ptr<PreparedBatch>> Prepare(std::span<const TransferEntry> entries) {
    (void)entries;
    return std::unique_ptr<PreparedBatch>();
  }
  // Posts the selected entries of a batch this endpoint's Prepare made from
  // `entries`, as PostWrite (op kWrite) or PostRead would post them, with
  // the same completion and errors; the peer's revocation of a region the
  // batch reaches is kOutOfRange, as PostWrite's. Only called for a batch
  // Prepare returned (never null).
  virtual Status PostPrepared(const PreparedBatch& batch, std::span<const TransferEntry> entries,
                              const PreparedSelection& selection, OpCode op,
                              TransferRequest& request, uint32_t stream) {
    (void)batch, (void)entries, (void)selection, (void)op, (void)request, (void)stream;
    return NotSupported("this transport prepares nothing");
  }

  // Sends `message` (1..kMaxNotificationBytes bytes, copied before this
  // returns) to the peer's NotificationSink, ordered behind the data: the
  // peer's engine receives it only after every byte of every one-sided
  // request posted on `stream` before this call (its Post* returned) has
  // reached the peer's memory (WRITE) or been read from it (READ), and
  // after the notifications posted before it on `stream`. Completes
  // `request` once the message is on its way to the peer (in its socket or
  // its shared ring, or acknowledged by its NIC); a connection that fails
  // first fails it.
  // The peer gets the whole message or none of it. Errors, with `request`
  // untouched: as PostSend's.
  virtual Status PostNotify(std::span<const uint8_t> message, TransferRequest& request,
                            uint32_t stream) {
    (void)message, (void)request, (void)stream;
    return NotSupported("this transport carries no notifications");
  }

  // Withdraws a local region from the peer. The engine's DeregisterMemory
  // calls it on every connection after removing `region` from its table
  // (so no later check admits it) and before freeing or handing back its
  // memory. On return this endpoint reads and writes none of the region's
  // bytes on the peer's behalf any more: a peer access already under way
  // has finished, a later one fails (each transport says with what). Also
  // called after Close(), which the peer may not have noticed yet. A region
  // the peer was never told of is OK at once. Thread-safe against posts.
  // Errors: kTimeout when a peer access under way had not finished by
  // `deadline`; each transport says what that leaves.
  virtual Status Revoke(const LocalRegionView& region, Deadline deadline) = 0;

  // Notifications the peer left where this side reads them on its own
  // thread (shm's ring in shared memory), handed to the sink now: the
  // engine calls it from GetNotifications, so that a reader that polls
  // sees a notification without waiting for a transport thread to wake.
  // AwaitNotifications: the engine is about to sleep for notifications;
  // from here on the peer's next one reaches the sink from the transport's
  // own thread (after handing over what is there now). Both are no-ops for
  // transports whose receiving thread delivers every notification (the
  // default). Thread-safe, also after Close(); a failure to deliver fails
  // the connection.
  virtual void PollNotifications() {}
  virtual void AwaitNotifications() {}

  // Idempotent. Stops progress, fails in-flight requests with
  // kConnectionLost, releases sockets and mappings. The destructor calls it.
  virtual void Close() = 0;

  // Close(), and discard what is queued for the peer and not yet in its
  // hands: for a rail the engine gives up on (failover), whose late bytes
  // must not land after their slices were dealt again on another rail
  // (tcp: an abortive close, RST, so a socket whose link comes back does
  // not deliver its old queue). The default, for transports that queue
  // nothing of the caller's past its completion (shm copies inside the
  // post, verbs' queue pairs in error flush theirs), is Close().
  virtual void Abandon() { Close(); }

  // The local NIC port this connection uses (PeerInfo::nic); the default,
  // for transports without one, is empty. Fixed once the endpoint exists.
  virtual NicPort nic() const { return {}; }

  // What CreateEndpoint spent registering this side's announced regions
  // with the device (PeerInfo::registration); the default, for transports
  // that register nothing, is zero. Fixed once the endpoint exists.
  virtual DeviceRegistration registration() const { return {}; }
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual std::string_view name() const = 0;
  virtual Capabilities capabilities() const = 0;
  // OK when this host can carry connections over the transport right now;
  // otherwise why not (verbs: kFailedPrecondition without an RDMA device,
  // kNotFound for an unknown device). The engine offers and accepts only
  // usable transports, and reports this status when a forced one is not.
  // Thread-safe; may be slow (opens devices), so it is asked once per
  // connection attempt, never per transfer.
  virtual Status Usable() const { return Status::Ok(); }
  // The ends this host offers rails from, best first; the first is the
  // path the control connection (whose local address is `control_local`,
  // numeric) takes, when the transport can tell. Empty, the default: one
  // rail, the transport's own path.
  virtual std::vector<RailCandidate> RailCandidates(const std::string& control_local) const {
    (void)control_local;
    return {};
  }
  // The names of the ends (RailCandidate::name) nearest host memory on
  // NUMA node `numa_node` (-1: unknown), by topology: what
  // ConnectOptions::rails 0 (`auto`) takes besides the first end. Asked only
  // by an initiator under `auto`; may read sysfs. Empty, the default: none
  // is near by topology (the first end alone).
  virtual std::vector<std::string> NearestRailEnds(int64_t numa_node) const {
    (void)numa_node;
    return {};
  }
  // Builds the endpoint for one connection; see EndpointSetup. Errors:
  // whatever setup met (kTimeout, kConnectionLost, kProtocolError,
  // kNotSupported, kIoError).
  virtual Result<std::unique_ptr<Endpoint>> CreateEndpoint(EndpointSetup& setup) = 0;
};

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_TRANSPORT_H_
