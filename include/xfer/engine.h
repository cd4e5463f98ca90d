// The libxfer engine: memory registration, peer connections and one-sided
// transfers, independent of the transport that carries them.
//
// Lifecycle:
//   1. Engine::Create(options) binds the listen address; peers may connect
//      from then on.
//   2. Register memory (AllocateMemory / RegisterMemory). A peer learns the
//      regions registered *before* it connected; regions registered later
//      are visible only to peers that connect later.
//   3. Connect(address) or WaitForPeer() yields a PeerId. The connection is
//      symmetric: either side may then READ, WRITE, send and receive.
//   4. Submit / Transfer / PostSend / PostRecv.
//   5. Disconnect(peer) fails that peer's in-flight requests with
//      kConnectionLost. Destroying the engine disconnects every peer and
//      frees every region it allocated.
#ifndef XFER_ENGINE_H_
#define XFER_ENGINE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xfer/data_mover.h"
#include "xfer/device_registration.h"
#include "xfer/export.h"
#include "xfer/memory.h"
#include "xfer/nic_port.h"
#include "xfer/status.h"
#include "xfer/transfer.h"

namespace xfer {

using PeerId = uint64_t;

// One transport's settings as key/value strings, in the manner of NIXL's
// backend parameters: each transport declares, documents and validates its
// own keys, so this header knows none of them. BuiltinTransportOptions()
// lists them with their types, ranges, defaults and docs (today: verbs
// takes device, port, gid_index, mtu and send_depth; shm and tcp take none;
// `xfer --help` and docs/libxfer.md print the table).
using TransportOptions = std::map<std::string, std::string, std::less<>>;

// How a connection moves the local side of one-sided transfers: straight
// from the caller's buffer by the transport, or bounced through host memory
// the engine owns. The choice that decides what GPUDirect buys over
// staging on one host: run a test twice, `direct` and `staged`.
enum class DevicePath : uint8_t {
  // The transport's own path for every memory kind it carries; local
  // buffers of a kind it does not carry (CUDA device memory on verbs
  // without GPUDirect) are staged.
  kAuto = 0,
  // The transport's own path only: Submit refuses local memory the
  // transport does not carry (kNotSupported), as when there is no staging.
  kDirect = 1,
  // Every local buffer, host memory included, bounces through the
  // connection's staging memory: WRITE copies each chunk of the source into
  // it and the transport sends the chunk from there; READ lands each chunk
  // there and the engine copies it out. Copies (memcpy, or a CUDA copy on a
  // stream of the engine's own for device memory) overlap the transport's
  // transfer of the previous chunk. Costs a copy per byte and a thread hop
  // per request; what it buys is reach (device memory over any transport)
  // and a baseline for the direct path.
  kStaged = 2,
};

// "auto", "direct", "staged".
XFER_API const char* DevicePathName(DevicePath path);
// The inverse of DevicePathName. Errors: kInvalidArgument naming the
// choices.
XFER_API Result<DevicePath> ParseDevicePath(std::string_view text);

struct EngineOptions {
  // Shown in logs and sent to peers in the handshake.
  std::string name = "xfer";
  // "host:port" to accept peers on. Port 0 picks a free port (see
  // Engine::listen_address()). An empty string accepts no peers.
  std::string listen_address = "127.0.0.1:0";
  // Transports this engine may use, by name ("shm", "tcp", ...). Empty means
  // every transport built in.
  std::vector<std::string> transports;
  // Bound on establishing a connection, handshake included.
  std::chrono::milliseconds connect_timeout{5000};
  // Bound on any single blocking step of a transport (a socket read during a
  // transfer, a peer acknowledgement). A peer silent for longer is declared
  // dead and its requests fail with kConnectionLost or kTimeout.
  std::chrono::milliseconds io_timeout{10000};
  // Failover over a connection's rails (ConnectOptions::rails,
  // docs/rails.md). A rail with slices in flight and none completed for
  // longer than `slice_timeout` has failed silently (a dead link that
  // neither delivers nor errs): it is taken down and its slices dealt again
  // on the others. Zero: half of io_timeout, so that a silent rail is left
  // before its transport would give up on the peer. Negative is refused.
  std::chrono::milliseconds slice_timeout{0};
  // How many times one failed slice is dealt again, each time to another
  // rail than the one that just failed it (Mooncake TENT's 8).
  uint32_t slice_retries = 8;
  // A failed rail is set up again in the background (both engines agree on
  // it over their control connection), first `rail_rejoin_backoff` after it
  // failed; each failed attempt doubles the wait, up to
  // `rail_rejoin_max_backoff`, and a returned rail that carries a slice
  // clears it. An attempt takes at most 2 s (or connect_timeout if
  // shorter), so a path that comes back carries traffic again within the
  // longest wait plus one attempt: 5 s with these defaults. The same
  // exchange fences a failed rail before the WRITEs it had in flight are
  // dealt again (docs/rails.md). Zero `rail_rejoin_backoff`: a failed rail
  // stays down for the connection's life, and its WRITEs are dealt again
  // unfenced. Negative, or a maximum below the first, is refused.
  std::chrono::milliseconds rail_rejoin_backoff{250};
  std::chrono::milliseconds rail_rejoin_max_backoff{3000};
  // Settings per transport, by transport name (see TransportOptions).
  // Engine::Create fails with kInvalidArgument, naming the problem, on
  // settings for a transport this build lacks, a key the transport does not
  // take, or a value it cannot use. Settings of a built-in transport that
  // `transports` leaves out are still checked, then unused.
  std::map<std::string, TransportOptions, std::less<>> transport_options;
  // A key shared with the peers this engine may talk to. Empty: peers are
  // not authenticated, and anyone who reaches listen_address learns every
  // registered region's address, length and access, then may READ and
  // WRITE them within those bounds. Set (at least 16 bytes; Engine::Create
  // refuses shorter): every connection, accepted or initiated, opens with a
  // mutual HMAC-SHA256 challenge-response over fresh nonces from both sides,
  // and a peer without the same secret is refused before it learns anything
  // of this engine: no identity, no region, no transport setup. A secret on
  // one side only refuses the connection on both. Engine::Connect reports a
  // refusal as kPermissionDenied. The handshake is authenticated, not
  // encrypted, and the transports' traffic after it is not authenticated.
  std::string secret;
  // How every connection of this engine moves its local buffers (see
  // DevicePath). A setting of this side alone: the peer's engine stages or
  // not by its own.
  DevicePath device_path = DevicePath::kAuto;
  // Receives one line for each connection the acceptor refuses because the
  // peer failed to authenticate; unset: the line goes to stderr. Called on
  // the engine's accept thread. The engine keeps serving after a refusal.
  std::function<void(std::string_view line)> refusal_log;
};

struct ConnectOptions {
  // Force a transport by name; empty lets the engine choose: "shm" when both
  // ends share a host and allow it, else "verbs" when both allow it and have
  // a usable RDMA device, else "tcp". A chosen transport whose setup fails
  // (e.g. RDMA devices that cannot reach each other) is dropped and the
  // next one tried, within connect_timeout; a forced one is not.
  std::string transport;
  // Independent streams (perftest's QPs). Submit spreads work by the
  // `stream` argument, modulo this count. 1..64. Each rail has them all.
  uint32_t streams = 1;
  // The rails the connection is striped over (docs/rails.md): paths
  // between the two engines, each its own endpoint of the transport -- over
  // tcp a pair of addresses in one subnet, the control connection's first;
  // over verbs a pair of RDMA devices, the configured ones first.
  // 0 (`auto`): the first path, and one per device nearest the NUMA node
  // of the connecting thread by topology (verbs; a software device or a
  // host whose sysfs places nothing: the first alone; tcp: the first
  // alone). N (1..16): N rails; with
  // fewer distinct paths than N, paths carry several (more sockets over one
  // path). Large requests are cut into slices dealt over the rails by each
  // one's measured bandwidth and bytes in flight; small ones go whole.
  uint32_t rails = 0;
  // This side's rail ends to use, by name (tcp: local addresses), rail 0's
  // first; empty: every one the transport offers. With `rails` 0, one rail
  // per name. Connect refuses a name the transport does not offer here
  // (kInvalidArgument, naming what it offers).
  std::vector<std::string> rail_ends{};
};

// A change of a rail's state, as the engine recorded it when it happened
// (RailInfo::events): the record that failover's recovery is measured by.
struct RailEvent {
  std::chrono::system_clock::time_point at{};
  bool up = false;     // the state it changed to
  std::string reason;  // down: the failure that took it down
};

// One rail of a connection, and what it has carried (PeerInfo::rails).
struct RailInfo {
  std::string local;   // this side's end: a local address (tcp), a device (verbs)
  std::string remote;  // the peer's end
  uint64_t bytes = 0;        // moved to completion, in slices
  uint64_t slices = 0;       // completed
  double bytes_per_sec = 0;  // the estimate slices are dealt by
  // Whether it takes slices; while a rail that failed is down, `failure`
  // says what took it down (EngineOptions::rail_rejoin_backoff: when it is
  // tried again).
  bool up = true;
  std::string failure{};
  // Bytes of slices this rail failed that were dealt again on the others.
  uint64_t retried_bytes = 0;
  // Every change of its state since the connection was made, oldest first.
  std::vector<RailEvent> events{};
};

struct PeerInfo {
  std::string name;       // the peer's EngineOptions::name
  std::string transport;  // the transport carrying this connection
  DataMover data_mover = DataMover::kKernel;  // that transport's
  uint32_t streams = 0;
  // Whether this side's CUDA device memory moves on this connection, by the
  // transport itself or staged (EngineOptions::device_path); where it does
  // not, Submit refuses local device memory. The peer's device memory moves
  // only where the transport itself reaches it (shm: CUDA IPC; tcp: the
  // peer's side stages it); elsewhere Submit refuses it.
  bool device_memory = false;
  // How this side's device memory moves ("CUDA IPC" over shm; "staged
  // through pinned host memory, ..." when staged); empty without
  // device_memory.
  std::string device_path;
  // Whether every local buffer is staged (DevicePath::kStaged).
  bool staged = false;
  // The most entries one Submit takes on this connection; split longer
  // batches over several requests.
  uint32_t max_entries_per_post = 1;
  // A Submit or PostSend of at most this many bytes in all, from host
  // memory, has read its source buffers when it returns; they may be
  // reused at once. 0 on a staged connection (staged); device memory is
  // read until the request completes on every connection.
  uint64_t max_inline_bytes = 0;
  std::vector<RemoteRegion> regions;  // as the peer described them
  NicPort nic;  // data_mover kNic: the local port carrying this connection
  // This side's memory registered with the transport's device when the
  // connection was set up: every region the engine held then (over verbs
  // regions longer than the transport option registration_piece in pieces,
  // several at once). Zero on transports without one. Regions allocated
  // later are registered on their first use, not counted here.
  DeviceRegistration registration;
  // The rails the connection is striped over, rail 0 first (it carries the
  // notifications and messages); one rail when it is not striped, with
  // its counters zero.
  std::vector<RailInfo> rails;
};

// A message from a peer's Engine::Notify or from a request it submitted
// with SubmitOptions::notification.
struct Notification {
  PeerId peer = 0;        // the sender, as this engine names it
  std::string peer_name;  // the sender's EngineOptions::name
  std::string message;    // the bytes as sent (any bytes, not only text)
};

// How Submit posts a request, beyond its entries.
struct SubmitOptions {
  // As Submit's `stream`.
  uint32_t stream = 0;
  // Sent to the peer once the request has touched its memory (empty: no
  // notification): the peer's engine receives it after every byte of this
  // request, and of every one-sided request posted before it on the same
  // stream, has reached the peer's memory (WRITE) or been read from it
  // (READ). The request completes once both the transfer has and the
  // notification is on its way. 1..kMaxNotificationBytes bytes, copied
  // before Submit returns. See Engine::Notify for delivery.
  std::string_view notification;
  // A deadline for this request, from Submit; 0: none (each blocking step
  // is still bounded by EngineOptions::io_timeout). Past it, a request
  // still in flight completes with kTimeout:
  //   - a staged request still queued behind others is dropped: no byte
  //     of it moved, and the connection carries on;
  //   - otherwise its work is with the transport (frames in tcp's socket,
  //     work requests on the NIC, device copies queued, chunks of a staged
  //     request in flight), and nothing but closing the connection stops
  //     that work from touching memory: the engine closes it, which fails
  //     the connection's other requests with kConnectionLost. shm's host
  //     copies complete inside Submit, so they never reach a deadline.
  // Like a timed-out Transfer, a WRITE past its deadline may have written
  // any part of its entries; a READ may have filled any part of its local
  // buffers, and nothing more once the request completed. Each watched
  // request keeps a small record until its deadline passes.
  std::chrono::nanoseconds timeout{0};
};

namespace internal {
class PreparedList;
}  // namespace internal

// A list of (local, remote, length) descriptors against one peer, checked
// and resolved once by Engine::PrepareTransfers and then submitted by
// index, any sub-range or index list of it, as often as wanted, with no
// per-entry check or lookup beyond a bounds test of the index (NIXL's
// prepared descriptor lists; the answer to a 15,000-descriptor transfer()
// costing 0.6 s in checks, nixl#176).
//
// A handle: copies share the list. The list lives while any copy does; a
// submission reads it only during the call, so dropping the last copy
// while its requests are in flight is fine.
//
// Invalidation: a list belongs to the connection it was prepared on, and
// refuses every submission (kFailedPrecondition, saying why) once
//   - a local region one of its entries lies in was deregistered (checked
//     lazily: the first submission after any deregistration of this engine
//     looks again, entry by entry, and then either carries on or marks the
//     list invalid for good);
//   - the peer revoked a region one of its entries lies in, where the
//     transport learns of it at submission (shm: its revocation table); tcp
//     and verbs learn of it from the peer's refusal, which fails that
//     request (kOutOfRange, kPermissionDenied) as Submit's would;
//   - the connection closed (kNotFound for the peer, as Submit).
// An empty handle (default-constructed) refuses with kInvalidArgument.
class XFER_API PreparedTransfers {
 public:
  PreparedTransfers() = default;
  explicit PreparedTransfers(std::shared_ptr<internal::PreparedList> list)
      : list_(std::move(list)) {}

  bool valid() const { return list_ != nullptr; }
  // The peer it was prepared against; 0 when empty.
  PeerId peer() const;
  // Its number of entries; 0 when empty.
  uint32_t size() const;
  internal::PreparedList* list() const { return list_.get(); }

 private:
  std::shared_ptr<internal::PreparedList> list_;
};

// The names of the transports this build of libxfer contains ("shm", "tcp",
// ...), in the order the build lists them; any of them may be named in
// EngineOptions::transports and ConnectOptions::transport. Whether one can
// run on a given host pair is known only by connecting. Thread-safe.
XFER_API std::vector<std::string> BuiltinTransports();

// One key a built-in transport takes in EngineOptions::transport_options,
// as the transport declares it.
struct TransportOptionInfo {
  std::string transport = {};  // "verbs"
  std::string key = {};        // "device"
  // A decimal integer in [min, max] (and one of `choices` when there are
  // any); otherwise free text.
  bool integer = false;
  uint64_t min = 0;
  uint64_t max = 0;
  std::vector<uint64_t> choices = {};
  std::string default_text = {};  // what holds when the key is not set
  std::string doc = {};           // one line
  // The flag of xfer's command line that sets it ("-d", as perftest spells
  // it); empty when none does.
  std::string flag = {};
};

// Every option of every built-in transport, transport by transport in
// BuiltinTransports() order, each transport's in its declared order: what
// tools derive their flags, keyword arguments and help from. Thread-safe.
XFER_API std::vector<TransportOptionInfo> BuiltinTransportOptions();

// Thread-safety: all methods may be called concurrently from several threads,
// except that one TransferRequest must not be submitted twice at once.
class XFER_API Engine {
 public:
  // Creates an engine and starts listening. Errors: kInvalidArgument (bad
  // listen address, unknown transport name), kIoError (bind/listen failed).
  static Result<std::unique_ptr<Engine>> Create(const EngineOptions& options);

  virtual ~Engine() = default;

  // The bound "host:port" (the real port when options asked for port 0), or
  // "" when not listening.
  virtual std::string listen_address() const = 0;

  // Allocates `length` bytes, zero-filled and page-aligned, owned by the
  // engine and registered with `options.access`. Host and hugepage memory
  // the engine allocates can be mapped by a same-host peer, so shm
  // transfers into it are plain memory copies.
  //
  // MemoryKind::kCuda allocates on the GPU `options.device` (cuMemAlloc in
  // that device's primary context, the one the CUDA runtime uses). The
  // NVIDIA driver is loaded at run time on the first such call; this engine
  // runs without one. shm (CUDA IPC) and tcp (staged through pinned host
  // memory) move device memory on either side; over verbs this side's is
  // staged by the engine (EngineOptions::device_path) and the peer's is
  // refused (see PeerInfo::device_memory).
  //
  // Errors: kInvalidArgument (length 0; for kCuda, a device ordinal this
  // process cannot see), kResourceExhausted (out of memory, of free
  // hugepages, or of device memory); for kCuda also kFailedPrecondition
  // saying why this host cannot use CUDA (no NVIDIA driver, the toolkit's
  // stub library, a driver older than CUDA 12.0, no device) and
  // kNotSupported when this build has no CUDA support.
  virtual Result<MemoryRegion> AllocateMemory(size_t length,
                                              const MemoryOptions& options) = 0;

  // Registers caller-owned memory [address, address+length). The caller keeps
  // ownership and must keep it valid until DeregisterMemory. `options.kind`
  // is ignored: the kind is detected. Where an NVIDIA driver is present, the
  // driver is asked what the memory is, and CUDA device memory (cudaMalloc
  // or the VMM API) registers as kCuda on its device; the range must lie
  // inside one device allocation. Errors: kInvalidArgument (null, zero
  // length, overlapping an existing region, leaving its device allocation,
  // or CUDA managed memory, which migrates and has no one right path).
  virtual Result<MemoryRegion> RegisterMemory(void* address, size_t length,
                                              const MemoryOptions& options) = 0;

  // Removes a region and revokes it from every connected peer; memory the
  // engine allocated is freed. The guarantee: once this returns OK, no peer
  // reads or writes a byte of the region through this engine, on any
  // transport, and none ever will. In detail:
  //   - A peer transfer that starts after the call fails: shm and tcp
  //     refuse it with kOutOfRange naming the region (shm from Submit, with
  //     nothing started; tcp as the request's final status); on verbs the
  //     region's memory registration is gone, so the target's device
  //     refuses it and the request completes with kPermissionDenied (a
  //     remote access error), which also puts that connection's queue pair
  //     in the error state: its later requests fail with kConnectionLost.
  //     In every case the region's memory is untouched.
  //   - A peer transfer racing with the call either fails as above or
  //     completes; if it moves bytes, it does so before this returns.
  //   - This may block until those racing transfers finish: for shm the
  //     peer's copies already admitted, for tcp the request being served,
  //     for verbs ibv_dereg_mr; at most io_timeout in all, plus up to
  //     connect_timeout behind connections being established (so that a
  //     peer connecting meanwhile cannot keep the region).
  //   - Disconnecting a peer revokes every region from it likewise (shm
  //     waits up to io_timeout for its copies under way).
  // Errors: kNotFound (no such region). kTimeout: a peer's transfer under
  // way had not finished within io_timeout; the region is deregistered
  // anyway and later transfers fail as above. Over tcp that peer's
  // connection was failed, which ended the transfer: the guarantee holds.
  // Over shm the peer is stalled (or died) mid-copy: memory the engine
  // allocated is freed anyway, and the copy can only land in pages this
  // process no longer maps; memory the caller registered may still receive
  // that one copy, so keep it allocated until that peer has exited or
  // disconnected. kIoError: the RDMA device refused to deregister the
  // region, which then stays reachable over that connection; keep caller
  // memory allocated until it closes.
  virtual Status DeregisterMemory(const MemoryRegion& region) = 0;

  // Connects to the engine listening at `address` ("host:port") and
  // exchanges region tables. Errors: kInvalidArgument (bad address, unknown
  // or disallowed transport), kNotSupported (no common transport, or a
  // forced one the pair cannot use), kFailedPrecondition (a forced transport
  // this host or the peer's cannot run, e.g. "verbs" without an RDMA
  // device: the message says why), kTimeout, kConnectionLost (at once when
  // nothing listens at `address`: connection refused), kIoError,
  // kProtocolError (the peer is not an xfer engine or sent garbage).
  virtual Result<PeerId> Connect(std::string_view address,
                                 const ConnectOptions& options) = 0;

  // Waits for the next peer to connect to this engine. Errors: kTimeout,
  // kNotSupported (not listening).
  virtual Result<PeerId> WaitForPeer(std::chrono::milliseconds timeout) = 0;

  // What the engine knows of a connected peer. Errors: kNotFound.
  virtual Result<PeerInfo> GetPeerInfo(PeerId peer) const = 0;

  // Closes the connection; its in-flight requests finish with
  // kConnectionLost. Errors: kNotFound.
  virtual Status Disconnect(PeerId peer) = 0;

  // Starts a batch of READs or WRITEs on `stream`. On OK the request is in
  // flight and completes when every entry has landed (for WRITE: in the
  // peer's memory). On error nothing was started and `request` is untouched.
  // A staged request (DevicePath) is queued for the connection's staging
  // thread and fails there, as its final status, where the transport
  // refuses a chunk (a region the peer revoked since the handshake). Over
  // shm, whose copies are memcpy: a request of less than 4 MiB in all is
  // copied inside this call (it is complete when it returns); a larger
  // one is copied by the connection's thread in posts of 2 MiB, so that
  // this call returns at once, and a deadline or Cancel stops it between
  // posts (the connection carries on). PeerInfo::max_inline_bytes says
  // which requests are read before the call returns.
  // Every entry is checked against local and remote registrations before
  // any byte moves. Errors: kNotFound (peer), kInvalidArgument (empty batch,
  // zero length, request already in flight, more entries than the
  // connection takes at once: PeerInfo::max_entries_per_post), kOutOfRange
  // (an address outside registered memory), kPermissionDenied (region lacks
  // the access), kNotSupported (local memory the transport does not carry
  // and device_path kDirect forbids staging; a peer's device region on a
  // transport that does not reach it, or one this side cannot open; the
  // message names the transport and the reason),
  // kResourceExhausted (the transport's queues are full: nothing was
  // started; retry once earlier requests complete), kConnectionLost.
  virtual Status Submit(PeerId peer, OpCode op,
                        std::span<const TransferEntry> entries,
                        TransferRequest& request, uint32_t stream = 0) = 0;

  // Submit with options (SubmitOptions): a notification for the peer. A
  // failure to send the notification after the transfer started is the
  // request's final status. Errors: Submit's, and kInvalidArgument for a
  // notification longer than kMaxNotificationBytes.
  virtual Status Submit(PeerId peer, OpCode op, std::span<const TransferEntry> entries,
                        TransferRequest& request, const SubmitOptions& options) = 0;

  // Cancels a request submitted to `peer`: what has not started is not
  // executed, and the request completes with kCancelled (unless a part of
  // it failed first; one that completes while Cancel runs may report its
  // own status or kCancelled) once nothing of it can still touch memory.
  // What "started" means:
  //   - a staged request still queued is dropped whole (no byte moved); a
  //     running one posts no further chunk and completes once the chunks
  //     in flight land;
  //   - a direct request's work is with the transport from Submit on
  //     (shm's host copies are even done by then): the request completes,
  //     with kCancelled, when that work ends, within io_timeout. A
  //     cancelled WRITE may so have written any part of its entries, up to
  //     all of them; a cancelled READ may have filled any part of its
  //     buffers. To stop a direct request at once, Disconnect the peer.
  // The connection stays up in every case. Errors: kNotFound (no such peer,
  // or the request is not in flight).
  virtual Status Cancel(PeerId peer, TransferRequest& request) = 0;

  // Notifications, NIXL's genNotif/getNotifs. Sends `message`
  // (1..kMaxNotificationBytes bytes, copied before this returns) to the
  // peer on `stream`, behind the data: the peer receives it only after
  // every byte of every one-sided request this engine posted to it on the
  // same stream before this call has reached the peer's memory (WRITE) or
  // been read from it (READ), on every transport:
  //   - verbs: a SEND on the stream's queue pair after its WRITEs and
  //     READs, which the peer's NIC executes in order;
  //   - tcp: a frame on the stream's socket after the WRITE and READ
  //     frames, which the peer serves in order;
  //   - shm: a slot of a ring in memory both processes map, published
  //     once this side's copies into the peer's memory are done (device
  //     copies: once their stream marks are reached); the peer's
  //     GetNotifications reads the ring itself, with no thread woken and no
  //     system call on either side, and a doorbell on the connection's
  //     socket wakes a peer that waits.
  // A staged request's notification follows its last chunk. Notifications
  // of one stream arrive in posting order; of different streams, in any.
  // Completes `request` once the message is on its way: in the socket
  // (tcp), in the peer's ring (shm), or, over verbs, acknowledged by the
  // peer's NIC. Delivery is all or nothing;
  // when the connection fails first the request fails, and the peer may or
  // may not have it.
  // Errors: kNotFound, kInvalidArgument (empty, longer than
  // kMaxNotificationBytes, request in flight), kNotSupported (a transport
  // without notifications), kResourceExhausted (queues full: retry),
  // kConnectionLost.
  virtual Status Notify(PeerId peer, std::string_view message, TransferRequest& request,
                        uint32_t stream = 0) = 0;

  // The notifications received and not yet taken, oldest first per peer
  // (from `from` only, when it is not 0), removed from the engine. Waits up
  // to `timeout` for the first one when none is there; returns empty when
  // none came. A notification stays readable after its sender
  // disconnected. Over tcp one whose request completed on the sender before
  // it disconnected (or its process exited) is delivered: the connection's
  // end is served after what the sender had sent before it. The engine keeps at most 16 MiB of unread notifications
  // per peer (an 8-byte one counts as 64): a peer that sends past that
  // fails its connection with kResourceExhausted, as an RDMA receiver
  // that posts no receives stalls its sender.
  virtual std::vector<Notification> GetNotifications(std::chrono::nanoseconds timeout,
                                                     PeerId from = 0) = 0;

  // Checks and resolves `entries` against `peer` once, as Submit checks a
  // batch: every local range inside one registered region, every remote
  // range inside one region the peer announced, memory kinds the
  // connection carries; the remote access is checked per submission,
  // against the op (the list remembers what every entry's region grants).
  // At most 2^32-1 entries. Allocates; not the hot path. Errors: Submit's
  // (kNotFound, kInvalidArgument for an empty list or a zero length,
  // kOutOfRange, kNotSupported), naming the entry.
  virtual Result<PreparedTransfers> PrepareTransfers(PeerId peer,
                                                     std::span<const TransferEntry> entries) = 0;

  // Submits entries [first, first + count) of `list` as one request, in
  // list order, as Submit would (same completion, same options). Checks
  // only that the range lies in the list, that every entry's remote region
  // grants the op's access, and that the list is still valid (see
  // PreparedTransfers). Errors: kInvalidArgument (empty handle, count 0,
  // range outside the list, more entries than the connection takes at
  // once, request in flight), kPermissionDenied (the op's access), kNotFound
  // (the list's connection closed), kFailedPrecondition (the list was
  // invalidated, saying why), and the transport's (kResourceExhausted:
  // retry; kConnectionLost).
  virtual Status SubmitPrepared(const PreparedTransfers& list, OpCode op, uint32_t first,
                                uint32_t count, TransferRequest& request,
                                const SubmitOptions& options = {}) = 0;
  // The same for the entries at `indices`, in that order (repeats allowed);
  // kInvalidArgument for an index outside the list, and for an empty
  // `indices`: it selects nothing, and is refused so that it is never taken
  // to mean "every entry" (a KV-cache mover with no dirty block moves none).
  virtual Status SubmitPrepared(const PreparedTransfers& list, OpCode op,
                                std::span<const uint32_t> indices, TransferRequest& request,
                                const SubmitOptions& options = {}) = 0;

  // Submit, then wait up to `timeout`. Returns the final status, or kTimeout.
  // On timeout the peer is disconnected: the request lives in this call and
  // must be finished before it returns. Bytes may have partly landed.
  Status Transfer(PeerId peer, OpCode op, std::span<const TransferEntry> entries,
                  std::chrono::nanoseconds timeout);

  // Two-sided: sends [data, data+length) to the peer, where it fills the
  // oldest posted receive. `data` must lie in registered memory. Completes
  // once the bytes have left `data` (it may then be reused), which is before
  // the peer has them: the sender is not told what the receiver did with
  // the message (see PostRecv for one longer than the receive). Errors:
  // kNotFound, kInvalidArgument (zero length, request in flight),
  // kOutOfRange (data not registered), kNotSupported (CUDA device memory:
  // no transport sends or receives it yet), kResourceExhausted (queues
  // full: retry), kConnectionLost.
  //
  // Over several rails (ConnectOptions::rails), messages go on rail 0 only,
  // so that they fill receives in order, and are not sent again elsewhere:
  // a message in flight on a failed rail fails its request with
  // kConnectionLost (the receiver may or may not have it), and with rail 0
  // down, sends and receives fail at once; one-sided requests and
  // notifications carry on over the rails left (docs/rails.md, failover).
  virtual Status PostSend(PeerId peer, const void* data, size_t length,
                          TransferRequest& request, uint32_t stream = 0) = 0;

  // Two-sided: posts a buffer for the peer's next send. Receives are filled
  // in posting order. request.bytes() gives the received length.
  //
  // A message longer than `capacity` is dropped, on every transport alike:
  // this receive completes with kInvalidArgument "<transport>: a 4096-byte
  // message does not fit the posted 16-byte receive; dropped" (both lengths,
  // so the receiver learns what it missed), bytes() 0, and nothing written
  // to `buffer`; the next message fills the next receive; the connection
  // stays up; and the sender's request completes OK, as PostSend's contract
  // says. (Over verbs the transport receives into its own slots, so the
  // NIC's local length error and the queue pair's failure never happen.) A
  // protocol whose sender must know posts receives as large as its largest
  // message. Errors: kNotFound, kInvalidArgument, kOutOfRange,
  // kNotSupported (device memory, as PostSend's).
  virtual Status PostRecv(PeerId peer, void* buffer, size_t capacity,
                          TransferRequest& request) = 0;
};

}  // namespace xfer

#endif  // XFER_ENGINE_H_
