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
#include "transport/remote_memory.h"
#include "xfer/data_mover.h"
#include "xfer/nic_port.h"
#include "xfer/status.h"
#include "xfer/transfer.h"

namespace xfer::transport {

// What a transport can do, as data: the engine chooses by these, never by
// name.
struct Capabilities {
  bool one_sided = false;       // PostWrite / PostRead
  bool two_sided = false;       // PostSend / PostRecv
  bool same_host_only = false;  // only between processes of one host
  // What moves one-sided transfers' bytes (xfer/engine.h): what a
  // benchmark compares this transport's bandwidth with.
  DataMover data_mover = DataMover::kKernel;
  // Moves CUDA device memory (MemoryKind::kCuda) on either side. Without
  // it the engine refuses such transfers before posting them, naming the
  // transport; no transport may touch device memory as if it were host
  // memory.
  bool device_memory = false;
  // How it moves device memory, for results to name ("CUDA IPC"); empty
  // without device_memory.
  std::string_view device_path;
  uint32_t max_streams = 1;     // upper bound for ConnectOptions::streams
  // Preference among transports both peers allow; higher wins when the
  // caller forces none (shm beats tcp on one host).
  int preference = 0;
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
};

// One connection to one peer. Every Post* call is made only after the engine
// checked local and remote ranges; the transport arms the request with
// internal::RequestAccess::Start and finishes it from any thread.
//
// Thread-safety: Post* may be called concurrently. Close() may race with
// them; after Close() every Post* fails with kConnectionLost.
class Endpoint {
 public:
  virtual ~Endpoint() = default;

  virtual Status PostWrite(std::span<const TransferEntry> entries,
                           TransferRequest& request, uint32_t stream) = 0;
  virtual Status PostRead(std::span<const TransferEntry> entries,
                          TransferRequest& request, uint32_t stream) = 0;
  virtual Status PostSend(const void* data, size_t length, TransferRequest& request,
                          uint32_t stream) = 0;
  virtual Status PostRecv(void* buffer, size_t capacity, TransferRequest& request) = 0;

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

  // Idempotent. Stops progress, fails in-flight requests with
  // kConnectionLost, releases sockets and mappings. The destructor calls it.
  virtual void Close() = 0;

  // The local NIC port this connection uses (PeerInfo::nic); the default,
  // for transports without one, is empty. Fixed once the endpoint exists.
  virtual NicPort nic() const { return {}; }
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
  // Builds the endpoint for one connection; see EndpointSetup. Errors:
  // whatever setup met (kTimeout, kConnectionLost, kProtocolError,
  // kNotSupported, kIoError).
  virtual Result<std::unique_ptr<Endpoint>> CreateEndpoint(EndpointSetup& setup) = 0;
};

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_TRANSPORT_H_
